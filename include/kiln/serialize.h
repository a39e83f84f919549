// kiln::save / kiln::load: LibTorch's torch::save / torch::load for tensors,
// lists of tensors, modules and optimizers, written in kiln's checkpoint
// format (docs/checkpoint-format.md) through serialize::OutputArchive /
// InputArchive. Saving is atomic (a failed save leaves an existing file
// intact); loading validates the whole file first and throws kiln::IOError
// naming the file for a missing, truncated, corrupted, foreign or newer file.
//
//   torch::save(model, "model.kiln");       torch::load(model, "model.kiln");
//   torch::save(optimizer, "opt.kiln");     torch::load(optimizer, "opt.kiln");
#pragma once

#include <concepts>
#include <memory>
#include <string>
#include <vector>

#include <kiln/frontend/tensor.h>
#include <kiln/nn/module.h>
#include <kiln/optim/optimizer.h>
#include <kiln/serialize/archive.h>

namespace kiln {

/// Saves one tensor's dtype, shape and values (under the key "0").
void save(const Tensor& tensor, const std::string& path);
/// Saves a list of tensors (under the keys "0", "1", ...).
void save(const std::vector<Tensor>& tensors, const std::string& path);
/// Saves a module's parameters and buffers (nn::Module::save).
void save(const nn::Module& module, const std::string& path);
template <class M>
void save(const nn::ModuleHolder<M>& module, const std::string& path) {
  save(static_cast<const nn::Module&>(*module.ptr()), path);
}
template <std::derived_from<nn::Module> M>
void save(const std::shared_ptr<M>& module, const std::string& path) {
  save(static_cast<const nn::Module&>(*module), path);
}
/// Saves an optimizer's group options and per-parameter state (Optimizer::save).
void save(const optim::Optimizer& optimizer, const std::string& path);

/// Loads a file written by save(tensor): `tensor` becomes a new tensor.
/// A file holding anything but one tensor is a ValueError.
void load(Tensor& tensor, const std::string& path);
/// Loads a file written by save(tensors): `tensors` is replaced by new tensors.
void load(std::vector<Tensor>& tensors, const std::string& path);
/// Copies a saved module's values into `module` in place (nn::Module::load:
/// names, dtypes and shapes must match exactly; nothing changes on error).
void load(nn::Module& module, const std::string& path);
template <class M>
void load(nn::ModuleHolder<M>& module, const std::string& path) {
  load(static_cast<nn::Module&>(*module.ptr()), path);
}
template <std::derived_from<nn::Module> M>
void load(const std::shared_ptr<M>& module, const std::string& path) {
  load(static_cast<nn::Module&>(*module), path);
}
/// Restores an optimizer over the same parameter groups (Optimizer::load).
void load(optim::Optimizer& optimizer, const std::string& path);

}  // namespace kiln

namespace kiln::serialize {

/// LibTorch's `archive << module` / `archive >> module` and the same for
/// optimizers: Module::save / load and Optimizer::save / load.
inline OutputArchive& operator<<(OutputArchive& archive, const nn::Module& module) {
  module.save(archive);
  return archive;
}
template <std::derived_from<nn::Module> M>
OutputArchive& operator<<(OutputArchive& archive, const std::shared_ptr<M>& module) {
  return archive << static_cast<const nn::Module&>(*module);
}
inline OutputArchive& operator<<(OutputArchive& archive, const optim::Optimizer& optimizer) {
  optimizer.save(archive);
  return archive;
}
inline InputArchive& operator>>(InputArchive& archive, nn::Module& module) {
  module.load(archive);
  return archive;
}
template <std::derived_from<nn::Module> M>
InputArchive& operator>>(InputArchive& archive, const std::shared_ptr<M>& module) {
  return archive >> static_cast<nn::Module&>(*module);
}
inline InputArchive& operator>>(InputArchive& archive, optim::Optimizer& optimizer) {
  optimizer.load(archive);
  return archive;
}

}  // namespace kiln::serialize
