#include "trace/external_access.h"

#include <atomic>
#include <mutex>
#include <unordered_map>

namespace kiln::trace {

namespace {

struct Table {
  std::mutex mu;
  std::unordered_map<const Storage*, std::shared_ptr<ExternalAccess>> in_flight;
};

Table& table() {
  static Table* t = new Table;  // never destroyed: a collective may end during static destruction
  return *t;
}

}  // namespace

constinit std::atomic<std::size_t> g_external_accesses{0};

void begin_external_access(const Storage& s, std::shared_ptr<ExternalAccess> access) {
  Table& t = table();
  std::lock_guard lock(t.mu);
  t.in_flight[&s] = std::move(access);
  g_external_accesses.store(t.in_flight.size(), std::memory_order_release);
}

void end_external_access(const Storage& s) noexcept {
  Table& t = table();
  std::lock_guard lock(t.mu);
  t.in_flight.erase(&s);
  g_external_accesses.store(t.in_flight.size(), std::memory_order_release);
}

void await_external_access_slow(const Storage& s) {
  Table& t = table();
  std::shared_ptr<ExternalAccess> access;
  {
    std::lock_guard lock(t.mu);
    auto it = t.in_flight.find(&s);
    if (it == t.in_flight.end()) return;
    access = it->second;
  }
  access->wait();
}

}  // namespace kiln::trace
