#include <kiln/serialize.h>

#include <kiln/error.h>

namespace kiln {

namespace {

serialize::InputArchive open_archive(const std::string& path) {
  serialize::InputArchive archive;
  archive.load_from(path);
  return archive;
}

}  // namespace

void save(const Tensor& tensor, const std::string& path) { save(std::vector<Tensor>{tensor}, path); }

void save(const std::vector<Tensor>& tensors, const std::string& path) {
  serialize::OutputArchive archive;
  for (std::size_t i = 0; i < tensors.size(); ++i) archive.write(std::to_string(i), tensors[i]);
  archive.save_to(path);
}

void save(const nn::Module& module, const std::string& path) {
  serialize::OutputArchive archive;
  module.save(archive);
  archive.save_to(path);
}

void save(const optim::Optimizer& optimizer, const std::string& path) {
  serialize::OutputArchive archive;
  optimizer.save(archive);
  archive.save_to(path);
}

void load(std::vector<Tensor>& tensors, const std::string& path) {
  const serialize::InputArchive archive = open_archive(path);
  const std::vector<std::string> keys = archive.keys();
  std::vector<Tensor> loaded(keys.size());
  for (std::size_t i = 0; i < keys.size(); ++i) archive.read(std::to_string(i), loaded[i]);
  tensors = std::move(loaded);
}

void load(Tensor& tensor, const std::string& path) {
  std::vector<Tensor> tensors;
  load(tensors, path);
  if (tensors.size() != 1)
    throw ValueError(detail::cat("[load] ", path, ": holds ", tensors.size(), " entries, not one tensor"));
  tensor = tensors.front();
}

void load(nn::Module& module, const std::string& path) {
  serialize::InputArchive archive = open_archive(path);
  module.load(archive);
}

void load(optim::Optimizer& optimizer, const std::string& path) {
  serialize::InputArchive archive = open_archive(path);
  optimizer.load(archive);
}

}  // namespace kiln
