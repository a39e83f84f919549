#include "jit/codegen/lower.h"

#include <map>
#include <utility>
#include <vector>

#include <llvm/IR/IRBuilder.h>

#include <kiln/error.h>

#include "jit/codegen/convert.h"
#include "jit/codegen/emit_ops.h"
#include "jit/codegen/ir_context.h"
#include "jit/codegen/validate.h"

namespace kiln::jit::codegen {
namespace {

// The dtype of every instruction must be one its op has a form for.
void check_dtypes(const KernelSpec& spec) {
  for (std::size_t i = 0; i < spec.instrs.size(); ++i) {
    const KernelInstr& instr = spec.instrs[i];
    if ((op_emitter(instr.op).dtypes & dtype_bit(instr.dtype)) == 0)
      throw InternalError(detail::cat("[jit] %", i, ": ", trace::name(instr.op), " has no ", instr.dtype,
                                      " form\n", spec.to_string()));
  }
}

class Lowering {
 public:
  Lowering(const KernelSpec& spec, llvm::Module& module)
      : spec_(spec), builder_(module.getContext()), ir_(module, builder_) {}

  void run(llvm::Function* f);

 private:
  // Whether some static dim has size 0 (no element, whatever the dynamic sizes).
  bool statically_empty() const {
    for (int d = 0; d < spec_.ndim; ++d)
      if (!spec_.is_dynamic(d) && spec_.sizes[d] == 0) return true;
    return false;
  }
  llvm::Value* inner_size() { return spec_.ndim == 0 ? builder_.getInt64(1) : sizes_[spec_.ndim - 1]; }
  std::int64_t inner_stride(const KernelOperand& operand) const {
    return spec_.ndim == 0 ? 0 : operand.strides[spec_.ndim - 1];
  }
  const KernelOperand& memory(std::size_t k) const {
    return k < spec_.inputs.size() ? spec_.inputs[k] : spec_.outputs[k - spec_.inputs.size()].mem;
  }

  llvm::Value* add_scaled(llvm::Value* sum, llvm::Value* x, std::int64_t stride);
  void load_invariants(llvm::Function* f);
  void row_offsets(llvm::Value* row, llvm::Value* col);
  llvm::Value* element_address(std::size_t k, llvm::Value* j);
  llvm::Value* load_input(std::size_t k, llvm::Value* j);
  llvm::Value* argument(const KernelInstr& instr, int k);
  void body(llvm::Value* j);

  const KernelSpec& spec_;
  llvm::IRBuilder<> builder_;
  IrContext ir_;
  std::vector<bool> used_;             // per input: read by some instruction
  std::vector<llvm::Value*> sizes_;    // per dim: its constant size, or the run-time one loaded at entry
  std::vector<llvm::Value*> bases_;    // inputs, then outputs
  std::vector<llvm::Value*> offsets_;  // per memory operand: element offset of the row piece (null: 0)
  std::vector<llvm::Value*> row_invariant_;  // inputs with inner stride 0, loaded once per row
  std::vector<llvm::Value*> loaded_;   // inputs loaded in the current inner iteration
  std::vector<llvm::Value*> values_;   // instruction results
  std::map<std::pair<std::int32_t, ScalarType>, llvm::Value*> scalars_;  // converted once, in the entry block
  llvm::MDNode* access_group_ = nullptr;  // the inner loop's loads and stores
};

void Lowering::load_invariants(llvm::Function* f) {
  llvm::Value* ptrs = f->getArg(2);
  llvm::Value* scalars = f->getArg(3);
  used_.assign(spec_.inputs.size(), false);
  for (const KernelInstr& instr : spec_.instrs)
    for (int k = 0; k < instr.arity; ++k)
      if (instr.args[k].kind == ArgRef::Input) used_[instr.args[k].index] = true;
  const std::size_t operands = spec_.inputs.size() + spec_.outputs.size();
  for (std::size_t k = 0; k < operands; ++k) {
    llvm::Value* slot = builder_.CreateConstInBoundsGEP1_64(builder_.getPtrTy(), ptrs, k);
    bases_.push_back(builder_.CreateAlignedLoad(builder_.getPtrTy(), slot, llvm::Align(8), "base" + std::to_string(k)));
  }
  std::size_t slot_index = spec_.scalars.size();  // dynamic sizes follow the scalars
  for (int d = 0; d < spec_.ndim; ++d) {
    if (!spec_.is_dynamic(d)) {
      sizes_.push_back(builder_.getInt64(spec_.sizes[d]));
      continue;
    }
    llvm::Value* slot = builder_.CreateConstInBoundsGEP1_64(builder_.getInt64Ty(), scalars, slot_index++);
    sizes_.push_back(builder_.CreateAlignedLoad(builder_.getInt64Ty(), slot, llvm::Align(8), "size" + std::to_string(d)));
  }
  for (const KernelInstr& instr : spec_.instrs) {
    for (int k = 0; k < instr.arity; ++k) {
      const ArgRef& arg = instr.args[k];
      const ScalarType to = operand_dtype(instr, k);
      if (arg.kind != ArgRef::Scalar || scalars_.count({arg.index, to})) continue;
      llvm::Value* slot = builder_.CreateConstInBoundsGEP1_64(builder_.getInt64Ty(), scalars, arg.index);
      llvm::Value* bits = builder_.CreateAlignedLoad(builder_.getInt64Ty(), slot, llvm::Align(8));
      scalars_[{arg.index, to}] = convert_scalar(ir_, bits, spec_.scalars[arg.index], to);
    }
  }
}

// sum + x * stride, folding the trivial cases (sum null: 0) so dumps stay readable.
llvm::Value* Lowering::add_scaled(llvm::Value* sum, llvm::Value* x, std::int64_t stride) {
  if (stride == 0) return sum;
  llvm::Value* term = stride == 1 ? x : builder_.CreateMul(x, builder_.getInt64(stride));
  return sum == nullptr ? term : builder_.CreateAdd(sum, term);
}

// Splits `row` into the indices of the outer dims and forms every operand's
// element offset of (row, col).
void Lowering::row_offsets(llvm::Value* row, llvm::Value* col) {
  std::vector<llvm::Value*> index(spec_.ndim > 0 ? spec_.ndim - 1 : 0);
  llvm::Value* rest = row;
  for (int d = spec_.ndim - 2; d >= 0; --d) {
    if (!spec_.is_dynamic(d) && spec_.sizes[d] == 1) continue;  // index 0: no term in any offset
    if (d == 0) {
      index[d] = rest;  // row < product of the outer sizes
    } else {
      index[d] = builder_.CreateURem(rest, sizes_[d]);
      rest = builder_.CreateUDiv(rest, sizes_[d]);
    }
  }
  offsets_.assign(bases_.size(), nullptr);
  row_invariant_.assign(spec_.inputs.size(), nullptr);
  for (std::size_t k = 0; k < bases_.size(); ++k) {
    const KernelOperand& operand = memory(k);
    llvm::Value* offset = nullptr;
    for (int d = 0; d + 1 < spec_.ndim; ++d)
      if (index[d] != nullptr) offset = add_scaled(offset, index[d], operand.strides[d]);
    offset = add_scaled(offset, col, inner_stride(operand));
    offsets_[k] = offset;
  }
  for (std::size_t k = 0; k < spec_.inputs.size(); ++k)
    if (used_[k] && inner_stride(spec_.inputs[k]) == 0) row_invariant_[k] = load_input(k, nullptr);
}

llvm::Value* Lowering::element_address(std::size_t k, llvm::Value* j) {
  const KernelOperand& operand = memory(k);
  llvm::Value* index = j == nullptr ? offsets_[k] : add_scaled(offsets_[k], j, inner_stride(operand));
  if (index == nullptr) index = builder_.getInt64(0);
  return builder_.CreateInBoundsGEP(ir_.memory_type(operand.dtype), bases_[k], index);
}

llvm::Value* Lowering::load_input(std::size_t k, llvm::Value* j) {
  const ScalarType t = spec_.inputs[k].dtype;
  llvm::Type* type = ir_.memory_type(t);
  llvm::LoadInst* value = builder_.CreateAlignedLoad(type, element_address(k, j), llvm::Align(element_size(t)),
                                                     "in" + std::to_string(k));
  if (j != nullptr) value->setMetadata(llvm::LLVMContext::MD_access_group, access_group_);
  if (t == kBool) return builder_.CreateICmpNE(value, builder_.getInt8(0));
  return value;
}

llvm::Value* Lowering::argument(const KernelInstr& instr, int k) {
  const ArgRef& arg = instr.args[k];
  const ScalarType to = operand_dtype(instr, k);
  llvm::Value* value = nullptr;
  switch (arg.kind) {
    case ArgRef::Scalar: return scalars_.at({arg.index, to});
    case ArgRef::Instr: value = values_[arg.index]; break;
    case ArgRef::Input: value = loaded_[arg.index]; break;
  }
  return convert(ir_, value, arg_dtype(spec_, arg), to);
}

// One element: load what is used, evaluate the instructions, store the outputs.
void Lowering::body(llvm::Value* j) {
  loaded_.assign(spec_.inputs.size(), nullptr);
  for (std::size_t k = 0; k < spec_.inputs.size(); ++k)
    if (used_[k]) loaded_[k] = row_invariant_[k] ? row_invariant_[k] : load_input(k, j);
  values_.clear();
  for (const KernelInstr& instr : spec_.instrs) {
    llvm::Value* args[3] = {};
    for (int k = 0; k < instr.arity; ++k) args[k] = argument(instr, k);
    values_.push_back(op_emitter(instr.op).emit(ir_, instr, llvm::ArrayRef(args, instr.arity)));
  }
  for (std::size_t k = 0; k < spec_.outputs.size(); ++k) {
    const KernelOutput& out = spec_.outputs[k];
    llvm::Value* value = convert(ir_, values_[out.instr], spec_.instrs[out.instr].out_dtype, out.mem.dtype);
    if (out.mem.dtype == kBool) value = builder_.CreateZExt(value, builder_.getInt8Ty());
    const std::size_t operand = spec_.inputs.size() + k;
    builder_.CreateAlignedStore(value, element_address(operand, j), llvm::Align(element_size(out.mem.dtype)))
        ->setMetadata(llvm::LLVMContext::MD_access_group, access_group_);
  }
}

void Lowering::run(llvm::Function* f) {
  llvm::LLVMContext& context = f->getContext();
  auto* entry = llvm::BasicBlock::Create(context, "entry", f);
  auto* exit = llvm::BasicBlock::Create(context, "exit", f);
  builder_.SetInsertPoint(exit);
  builder_.CreateRetVoid();
  builder_.SetInsertPoint(entry);
  if (statically_empty()) {  // no element: nothing to do (and no division by a zero size)
    builder_.CreateBr(exit);
    return;
  }
  load_invariants(f);
  llvm::Value* begin = f->getArg(0);
  llvm::Value* end = f->getArg(1);
  auto* row_block = llvm::BasicBlock::Create(context, "row", f, exit);
  auto* inner_block = llvm::BasicBlock::Create(context, "inner", f, exit);
  auto* latch_block = llvm::BasicBlock::Create(context, "row.latch", f, exit);
  builder_.CreateCondBr(builder_.CreateICmpSLT(begin, end), row_block, exit);

  builder_.SetInsertPoint(row_block);
  llvm::PHINode* i = builder_.CreatePHI(builder_.getInt64Ty(), 2, "i");
  i->addIncoming(begin, entry);
  llvm::Value* inner = inner_size();
  llvm::Value* row = spec_.ndim >= 2 ? builder_.CreateUDiv(i, inner, "row") : builder_.getInt64(0);
  llvm::Value* col = spec_.ndim >= 2 ? builder_.CreateURem(i, inner, "col") : static_cast<llvm::Value*>(i);
  llvm::Value* n = builder_.CreateBinaryIntrinsic(llvm::Intrinsic::smin, builder_.CreateSub(inner, col),
                                                  builder_.CreateSub(end, i), nullptr, "n");
  row_offsets(row, col);
  builder_.CreateBr(inner_block);

  builder_.SetInsertPoint(inner_block);
  access_group_ = llvm::MDNode::getDistinct(context, {});
  llvm::PHINode* j = builder_.CreatePHI(builder_.getInt64Ty(), 2, "j");
  j->addIncoming(builder_.getInt64(0), row_block);
  body(j);
  llvm::Value* j_next = builder_.CreateAdd(j, builder_.getInt64(1), "j.next");
  j->addIncoming(j_next, builder_.GetInsertBlock());
  llvm::BranchInst* back = builder_.CreateCondBr(builder_.CreateICmpSLT(j_next, n), inner_block, latch_block);
  // No iteration touches another's elements (outputs overlap inputs only
  // element for element, in place), so the inner loop's accesses are
  // declared parallel: the vectorizer needs no run-time overlap checks,
  // which would fail in place (distance 0) and give up past 8 pointers.
  llvm::MDNode* self = llvm::MDNode::getDistinct(context, {});
  llvm::MDNode* parallel = llvm::MDNode::get(
      context, {llvm::MDString::get(context, "llvm.loop.parallel_accesses"), access_group_});
  llvm::MDNode* loop_id = llvm::MDNode::get(context, {self, parallel});
  loop_id->replaceOperandWith(0, loop_id);
  back->setMetadata(llvm::LLVMContext::MD_loop, loop_id);

  builder_.SetInsertPoint(latch_block);
  llvm::Value* i_next = builder_.CreateAdd(i, n, "i.next");
  i->addIncoming(i_next, latch_block);
  builder_.CreateCondBr(builder_.CreateICmpSLT(i_next, end), row_block, exit);
}

}  // namespace

std::unique_ptr<llvm::Module> lower(const KernelSpec& spec, const std::string& name, llvm::LLVMContext& context,
                                    const llvm::TargetMachine& tm) {
  validate(spec);
  check_dtypes(spec);
  auto module = std::make_unique<llvm::Module>(name, context);
  module->setTargetTriple(tm.getTargetTriple().str());
  module->setDataLayout(tm.createDataLayout());

  llvm::IRBuilder<> types(context);
  llvm::Type* i64 = types.getInt64Ty();
  llvm::Type* ptr = types.getPtrTy();
  auto* type = llvm::FunctionType::get(types.getVoidTy(), {i64, i64, ptr, ptr}, false);
  auto* f = llvm::Function::Create(type, llvm::GlobalValue::ExternalLinkage, name, *module);
  f->setDoesNotThrow();
  f->addFnAttr("target-cpu", tm.getTargetCPU());
  f->addFnAttr("target-features", tm.getTargetFeatureString());
  for (unsigned k : {2u, 3u}) {
    f->addParamAttr(k, llvm::Attribute::NoAlias);
    f->addParamAttr(k, llvm::Attribute::NoCapture);
    f->addParamAttr(k, llvm::Attribute::ReadOnly);
  }
  f->getArg(0)->setName("begin");
  f->getArg(1)->setName("end");
  f->getArg(2)->setName("ptrs");
  f->getArg(3)->setName("scalars");
  Lowering(spec, *module).run(f);
  return module;
}

}  // namespace kiln::jit::codegen
