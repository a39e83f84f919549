// kiln::OrderedDict: LibTorch's torch::OrderedDict, a vector of key/value
// items in insertion order with lookup by key. Modules return their named
// parameters, buffers and children in one.
#pragma once

#include <cstddef>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include <kiln/error.h>

namespace kiln {

template <class Key, class Value>
class OrderedDict {
 public:
  /// One entry: key() and value(), as LibTorch's OrderedDict::Item.
  class Item {
   public:
    Item(Key key, Value value) : pair_(std::move(key), std::move(value)) {}
    const Key& key() const { return pair_.first; }
    Value& value() { return pair_.second; }
    const Value& value() const { return pair_.second; }
    Value& operator*() { return value(); }
    const Value& operator*() const { return value(); }
    Value* operator->() { return &value(); }
    const Value* operator->() const { return &value(); }
    const std::pair<Key, Value>& pair() const { return pair_; }

   private:
    std::pair<Key, Value> pair_;
  };

  /// `key_description` names what the keys are in error messages ("Parameter").
  explicit OrderedDict(std::string key_description = "Key") : key_description_(std::move(key_description)) {}

  /// Adds an item; a key already present is a ValueError.
  Value& insert(Key key, Value value) {
    if (index_.count(key))
      throw ValueError(kiln::detail::cat(key_description_, " '", key, "' already defined"));
    index_.emplace(key, items_.size());
    items_.emplace_back(std::move(key), std::move(value));
    return items_.back().value();
  }
  /// Adds the item, or replaces the value of the key present.
  Value& update(Key key, Value value) {
    if (Value* v = find(key)) return *v = std::move(value);
    return insert(std::move(key), std::move(value));
  }

  Value* find(const Key& key) {
    auto it = index_.find(key);
    return it == index_.end() ? nullptr : &items_[it->second].value();
  }
  const Value* find(const Key& key) const {
    auto it = index_.find(key);
    return it == index_.end() ? nullptr : &items_[it->second].value();
  }
  bool contains(const Key& key) const { return index_.count(key) != 0; }
  /// The value of `key`; an unknown key is an IndexError naming it.
  Value& operator[](const Key& key) { return *checked(key); }
  const Value& operator[](const Key& key) const { return *const_cast<OrderedDict*>(this)->checked(key); }

  Item& operator[](std::size_t index) { return items_.at(index); }
  const Item& operator[](std::size_t index) const { return items_.at(index); }

  std::size_t size() const { return items_.size(); }
  bool is_empty() const { return items_.empty(); }
  void clear() {
    items_.clear();
    index_.clear();
  }

  std::vector<Key> keys() const {
    std::vector<Key> out;
    for (const Item& i : items_) out.push_back(i.key());
    return out;
  }
  std::vector<Value> values() const {
    std::vector<Value> out;
    for (const Item& i : items_) out.push_back(i.value());
    return out;
  }
  const std::vector<Item>& items() const { return items_; }

  auto begin() { return items_.begin(); }
  auto end() { return items_.end(); }
  auto begin() const { return items_.begin(); }
  auto end() const { return items_.end(); }

 private:
  Value* checked(const Key& key) {
    Value* v = find(key);
    if (!v) throw IndexError(kiln::detail::cat(key_description_, " '", key, "' is not defined"));
    return v;
  }

  std::string key_description_;
  std::vector<Item> items_;
  std::unordered_map<Key, std::size_t> index_;
};

}  // namespace kiln
