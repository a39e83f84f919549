// Optimizer checkpoints: each group's options under "param_groups.<i>.options"
// with its size under "param_groups.<i>.params", the group count under
// "param_groups", and each parameter's state under "state.<k>", k the
// parameter's position across the groups (LibTorch's keys).
#include <kiln/optim/optimizer.h>

#include <string>

#include <kiln/error.h>
#include <kiln/serialize/archive.h>

namespace kiln::optim {

namespace {

[[noreturn]] void unsupported(const char* what) {
  throw ValueError(kiln::detail::cat("[optim] this optimizer's ", what,
                                     " cannot be saved or loaded: it does not implement serialize()"));
}

std::string group_key(std::size_t i) { return "param_groups." + std::to_string(i); }
std::string state_key(std::size_t k) { return "state." + std::to_string(k); }

}  // namespace

void OptimizerOptions::serialize(serialize::OutputArchive&) const { unsupported("options"); }
void OptimizerOptions::serialize(serialize::InputArchive&) { unsupported("options"); }
void OptimizerParamState::serialize(serialize::OutputArchive&) const { unsupported("state"); }
void OptimizerParamState::serialize(serialize::InputArchive&) { unsupported("state"); }

std::unique_ptr<OptimizerParamState> Optimizer::make_param_state() const { unsupported("state"); }

void Optimizer::save(serialize::OutputArchive& archive) const {
  archive.write("param_groups", static_cast<std::int64_t>(param_groups_.size()));
  std::size_t k = 0;
  for (std::size_t i = 0; i < param_groups_.size(); ++i) {
    const OptimizerParamGroup& group = param_groups_[i];
    serialize::OutputArchive options;
    group.options().serialize(options);
    archive.write(group_key(i) + ".options", options);
    archive.write(group_key(i) + ".params", static_cast<std::int64_t>(group.params().size()));
    for (const Tensor& p : group.params()) {
      auto it = state_.find(p.impl().get());
      if (it != state_.end()) {
        serialize::OutputArchive state;
        it->second->serialize(state);
        archive.write(state_key(k), state);
      }
      ++k;
    }
  }
}

void Optimizer::load(serialize::InputArchive& archive) {
  const auto fail = [&](const auto&... what) {
    throw ValueError(kiln::detail::cat("[optim::Optimizer::load] ", archive.filename(), ": ", what...));
  };
  std::int64_t groups = 0;
  archive.read("param_groups", groups);
  if (groups != static_cast<std::int64_t>(param_groups_.size()))
    fail("the file has ", groups, " parameter groups, the optimizer ", param_groups_.size());
  std::vector<std::unique_ptr<OptimizerOptions>> options;
  std::unordered_map<const void*, std::unique_ptr<OptimizerParamState>> state;
  std::size_t k = 0;
  for (std::size_t i = 0; i < param_groups_.size(); ++i) {
    const OptimizerParamGroup& group = param_groups_[i];
    std::int64_t params = 0;
    archive.read(group_key(i) + ".params", params);
    if (params != static_cast<std::int64_t>(group.params().size()))
      fail("parameter group ", i, " has ", params, " parameters in the file, ", group.params().size(),
           " in the optimizer");
    serialize::InputArchive group_options;
    archive.read(group_key(i) + ".options", group_options);
    options.push_back(group.options().clone());
    options.back()->serialize(group_options);
    for (const Tensor& p : group.params()) {
      if (archive.contains(state_key(k))) {
        serialize::InputArchive fields;
        archive.read(state_key(k), fields);
        auto s = make_param_state();
        s->serialize(fields);
        state[p.impl().get()] = std::move(s);
      }
      ++k;
    }
  }
  for (const std::string& key : archive.keys()) {
    if (!key.starts_with("state.")) continue;
    const std::string position = key.substr(6, key.find('.', 6) - 6);
    if (position.empty() || position.size() > 18 || position.find_first_not_of("0123456789") != std::string::npos ||
        std::stoull(position) >= k)
      fail("the file has state for parameter '", position, "', the optimizer has ", k, " parameters");
  }
  for (std::size_t i = 0; i < param_groups_.size(); ++i) param_groups_[i].set_options(std::move(options[i]));
  state_ = std::move(state);
}

}  // namespace kiln::optim
