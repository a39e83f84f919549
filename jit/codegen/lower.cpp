#include "jit/codegen/lower.h"

#include <map>
#include <utility>
#include <vector>

#include <llvm/IR/IRBuilder.h>

#include <kiln/error.h>

#include "jit/codegen/convert.h"
#include "jit/codegen/emit_ops.h"
#include "jit/codegen/emit_reduce.h"
#include "jit/codegen/ir_context.h"
#include "jit/codegen/kernel_module.h"
#include "jit/codegen/validate.h"
#include "jit/fusion/kernel_phases.h"

namespace kiln::jit::codegen {
namespace {

// The dtype of every elementwise instruction must be one its op has a form
// for; reductions have a form for every dtype, as on tier 0.
void check_dtypes(const KernelSpec& spec) {
  for (std::size_t i = 0; i < spec.instrs.size(); ++i) {
    const KernelInstr& instr = spec.instrs[i];
    if (is_reduction(instr.op)) continue;
    if ((op_emitter(instr.op).dtypes & dtype_bit(instr.dtype)) == 0)
      throw InternalError(detail::cat("[jit] %", i, ": ", trace::name(instr.op), " has no ", instr.dtype,
                                      " form\n", spec.to_string()));
  }
}

class Lowering {
 public:
  Lowering(const KernelSpec& spec, llvm::Module& module)
      : spec_(spec),
        phases_(plan_phases(spec)),
        sum_block_(spec.knobs.sum_block > 0 ? spec.knobs.sum_block : heuristic_sum_block(spec.is_partial())),
        builder_(module.getContext()),
        ir_(module, builder_) {}

  void run(llvm::Function* f);

 private:
  bool row_kernel() const { return spec_.row_dims > 0; }
  // Whether no element can exist whatever the dynamic sizes: then nothing
  // is done (and no size divides). A partial kernel still stores identities.
  bool statically_empty() const {
    if (spec_.is_partial()) return false;
    const int dims = row_kernel() ? spec_.row_dims : spec_.ndim;
    for (int d = 0; d < dims; ++d)
      if (!spec_.is_dynamic(d) && spec_.sizes[d] == 0) return true;
    return false;
  }
  std::int64_t inner_stride(const KernelOperand& operand) const {
    return spec_.ndim == 0 ? 0 : operand.strides[spec_.ndim - 1];
  }
  const KernelOperand& memory(std::size_t k) const {
    return k < spec_.inputs.size() ? spec_.inputs[k] : spec_.outputs[k - spec_.inputs.size()].mem;
  }
  std::size_t output_operand(std::size_t k) const { return spec_.inputs.size() + k; }

  llvm::Value* add_scaled(llvm::Value* sum, llvm::Value* x, std::int64_t stride);
  llvm::Value* product_of_sizes(int from, int to);
  void load_invariants(llvm::Function* f);
  std::vector<llvm::Value*> split_index(llvm::Value* index, int first, int last);
  std::vector<llvm::Value*> offsets_of(const std::vector<llvm::Value*>& index, int first, int last,
                                       const std::vector<llvm::Value*>& base);
  llvm::Value* address(std::size_t k, llvm::Value* offset);
  llvm::Value* load_input(std::size_t k, llvm::Value* offset, llvm::MDNode* group);
  void store(std::size_t out, llvm::Value* offset, llvm::MDNode* group);
  llvm::Value* argument(const KernelInstr& instr, int k);
  void evaluate(std::size_t i);
  void row_values(int depth);
  void row(llvm::Value* row_index, llvm::Value* first, llvm::Value* end);
  void loop(int phase, llvm::Value* first, llvm::Value* end);
  void element(int phase, llvm::Value* position, llvm::Value* j, llvm::MDNode* group);
  llvm::Value* row_cache_slot(std::size_t i, llvm::Value* position, llvm::Value* j);
  bool blocked(int phase) const;
  bool prefetches(int phase) const;
  void blocks(int phase, bool begin);
  void prefetch_next_row(llvm::Value* jb);
  llvm::MDNode* loop_metadata(llvm::MDNode* group);

  const KernelSpec& spec_;
  const KernelPhases phases_;
  const std::int64_t sum_block_;       // elements per block of a blocked loop (KernelKnobs::sum_block)
  llvm::IRBuilder<> builder_;
  IrContext ir_;
  std::vector<bool> used_;             // per input: read by some instruction
  std::vector<llvm::Value*> sizes_;    // per dim: its constant size, or the run-time one loaded at entry
  std::vector<llvm::Value*> bases_;    // inputs, then outputs
  std::vector<llvm::Value*> row_base_;  // per memory operand: element offset of the row (null: 0)
  std::vector<llvm::Value*> offsets_;  // per memory operand: element offset of the row piece (null: 0)
  std::vector<llvm::Value*> invariant_;  // per input: loaded once per row or per row piece
  std::vector<llvm::Value*> loaded_;   // inputs loaded in the current inner iteration
  std::vector<llvm::Value*> values_;   // instruction results (row-level: of the current row)
  std::vector<Accumulator> accumulators_;  // per instruction (reductions only)
  std::vector<llvm::Value*> row_cache_;    // per instruction: its row buffer (kept costly values only)
  std::map<std::pair<std::int32_t, ScalarType>, llvm::Value*> scalars_;  // converted once, in the entry block
};

// sum + x * stride, folding the trivial cases (sum null: 0) so dumps stay readable.
llvm::Value* Lowering::add_scaled(llvm::Value* sum, llvm::Value* x, std::int64_t stride) {
  if (stride == 0) return sum;
  llvm::Value* term = stride == 1 ? x : builder_.CreateMul(x, builder_.getInt64(stride));
  return sum == nullptr ? term : builder_.CreateAdd(sum, term);
}

llvm::Value* Lowering::product_of_sizes(int from, int to) {
  llvm::Value* n = builder_.getInt64(1);
  for (int d = from; d < to; ++d) n = builder_.CreateMul(n, sizes_[d]);
  return n;
}

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
  accumulators_.resize(spec_.instrs.size());
  row_cache_.assign(spec_.instrs.size(), nullptr);
  for (std::size_t i = 0; i < spec_.instrs.size(); ++i) {
    if (is_reduction(spec_.instrs[i].op)) accumulators_[i] = make_accumulator(ir_, spec_.instrs[i]);
    if (phases_.cache_loop[i] < 0 || phases_.cache_output[i] >= 0) continue;
    llvm::Type* type = llvm::ArrayType::get(ir_.value_type(spec_.instrs[i].out_dtype), phases_.row_elements);
    llvm::AllocaInst* buffer = builder_.CreateAlloca(type, nullptr, "row.cache" + std::to_string(i));
    buffer->setAlignment(llvm::Align(64));
    row_cache_[i] = buffer;
  }
}

// Element `position` (the j-th of the current piece) of %i's row buffer:
// on the stack, or in the output that holds it (KernelPhases::cache_output).
llvm::Value* Lowering::row_cache_slot(std::size_t i, llvm::Value* position, llvm::Value* j) {
  if (const int k = phases_.cache_output[i]; k >= 0) {
    const std::size_t operand = output_operand(static_cast<std::size_t>(k));
    return address(operand, add_scaled(offsets_[operand], j, inner_stride(memory(operand))));
  }
  return builder_.CreateInBoundsGEP(ir_.value_type(spec_.instrs[i].out_dtype), row_cache_[i], position);
}

// Whether loop `phase` folds a blocked sum (emit_reduce.h) or prefetches:
// its inner loop then runs in blocks of sum_block_ elements.
bool Lowering::blocked(int phase) const {
  if (prefetches(phase)) return true;
  for (std::size_t i = 0; i < spec_.instrs.size(); ++i)
    if (accumulators_[i].block && phases_.depth[i] == phase + 1) return true;
  return false;
}

// A row kernel over rows of one dim with two loops or more, whose rows
// span at most kRowCacheBytes per operand: its next-to-last loop (softmax's
// sum of exp, a layer norm's variance), which computes from what the first
// loop brought into the cache, prefetches the next row of every operand
// read or written along the row, so that the next row's first loop and its
// stores do not wait for memory.
bool Lowering::prefetches(int phase) const {
  return row_kernel() && spec_.row_dims == 1 && phases_.loops >= 2 && phase == phases_.loops - 2 &&
         phases_.row_elements * 8 <= kRowCacheBytes;
}

// The lines of block [jb, jb + sum_block_) of the current piece, one row on,
// of each operand with unit inner stride that varies along the row.
void Lowering::prefetch_next_row(llvm::Value* jb) {
  constexpr std::int64_t kLine = 64;
  for (std::size_t k = 0; k < bases_.size(); ++k) {
    const bool input = k < spec_.inputs.size();
    if (input ? !used_[k] || row_level_input(spec_, k) : phases_.store_loop[k - spec_.inputs.size()] < 0) continue;
    if (inner_stride(memory(k)) != 1) continue;
    const std::int64_t size = static_cast<std::int64_t>(element_size(memory(k).dtype));
    llvm::Value* first = add_scaled(add_scaled(offsets_[k], jb, 1), builder_.getInt64(1), memory(k).strides[0]);
    for (std::int64_t line = 0; line < sum_block_ * size; line += kLine) {
      // Not inbounds: the row after the last one may lie past the tensor (a
      // prefetch never faults).
      llvm::Value* element = builder_.CreateGEP(ir_.memory_type(memory(k).dtype), bases_[k], first);
      llvm::Value* at = builder_.CreateGEP(builder_.getInt8Ty(), element, builder_.getInt64(line));
      builder_.CreateIntrinsic(llvm::Intrinsic::prefetch, {builder_.getPtrTy()},
                               {at, builder_.getInt32(input ? 0 : 1), builder_.getInt32(3), builder_.getInt32(1)});
    }
  }
}

// The inner loop's llvm.loop node: its accesses (`group`) are parallel, and
// the width and interleave count the knobs ask for.
llvm::MDNode* Lowering::loop_metadata(llvm::MDNode* group) {
  llvm::LLVMContext& context = builder_.getContext();
  auto named = [&](const char* name, llvm::Metadata* value) {
    return llvm::MDNode::get(context, {llvm::MDString::get(context, name), value});
  };
  auto count = [&](std::int32_t n) { return llvm::ConstantAsMetadata::get(builder_.getInt32(n)); };
  std::vector<llvm::Metadata*> items{nullptr, named("llvm.loop.parallel_accesses", group)};
  if (spec_.knobs.vector_width > 0) {
    items.push_back(named("llvm.loop.vectorize.width", count(spec_.knobs.vector_width)));
    items.push_back(named("llvm.loop.vectorize.enable", llvm::ConstantAsMetadata::get(builder_.getTrue())));
  }
  if (spec_.knobs.interleave > 0) items.push_back(named("llvm.loop.interleave.count", count(spec_.knobs.interleave)));
  llvm::MDNode* loop_id = llvm::MDNode::getDistinct(context, items);
  loop_id->replaceOperandWith(0, loop_id);
  return loop_id;
}

void Lowering::blocks(int phase, bool begin) {
  for (std::size_t i = 0; i < spec_.instrs.size(); ++i) {
    if (!accumulators_[i].block || phases_.depth[i] != phase + 1) continue;
    if (begin) begin_block(ir_, spec_.instrs[i], accumulators_[i]);
    else end_block(ir_, spec_.instrs[i], accumulators_[i]);
  }
}

// The indices of dims [first, last] in the row-major linear `index` (the
// index of dim `first` is what remains: the caller keeps `index` in range).
// Null for a static size-1 dim: its index is 0 and enters no offset.
std::vector<llvm::Value*> Lowering::split_index(llvm::Value* index, int first, int last) {
  std::vector<llvm::Value*> out(spec_.ndim, nullptr);
  llvm::Value* rest = index;
  for (int d = last; d >= first; --d) {
    if (!spec_.is_dynamic(d) && spec_.sizes[d] == 1) continue;
    if (d == first) {
      out[d] = rest;
    } else {
      out[d] = builder_.CreateURem(rest, sizes_[d]);
      rest = builder_.CreateUDiv(rest, sizes_[d]);
    }
  }
  return out;
}

// Per memory operand: base + the offset of `index` over dims [first, last].
std::vector<llvm::Value*> Lowering::offsets_of(const std::vector<llvm::Value*>& index, int first, int last,
                                               const std::vector<llvm::Value*>& base) {
  std::vector<llvm::Value*> offsets(bases_.size(), nullptr);
  for (std::size_t k = 0; k < bases_.size(); ++k) {
    llvm::Value* offset = base.empty() ? nullptr : base[k];
    for (int d = first; d <= last; ++d)
      if (index[d] != nullptr) offset = add_scaled(offset, index[d], memory(k).strides[d]);
    offsets[k] = offset;
  }
  return offsets;
}

llvm::Value* Lowering::address(std::size_t k, llvm::Value* offset) {
  if (offset == nullptr) offset = builder_.getInt64(0);
  return builder_.CreateInBoundsGEP(ir_.memory_type(memory(k).dtype), bases_[k], offset);
}

llvm::Value* Lowering::load_input(std::size_t k, llvm::Value* offset, llvm::MDNode* group) {
  const ScalarType t = spec_.inputs[k].dtype;
  llvm::LoadInst* value = builder_.CreateAlignedLoad(ir_.memory_type(t), address(k, offset),
                                                     llvm::Align(element_size(t)), "in" + std::to_string(k));
  if (group) value->setMetadata(llvm::LLVMContext::MD_access_group, group);
  if (t == kBool) return builder_.CreateICmpNE(value, builder_.getInt8(0));
  return value;
}

void Lowering::store(std::size_t k, llvm::Value* offset, llvm::MDNode* group) {
  const KernelOutput& out = spec_.outputs[k];
  llvm::Value* value = convert(ir_, values_[out.instr], spec_.instrs[out.instr].out_dtype, out.mem.dtype);
  if (out.mem.dtype == kBool) value = builder_.CreateZExt(value, builder_.getInt8Ty());
  llvm::StoreInst* s = builder_.CreateAlignedStore(value, address(output_operand(k), offset),
                                                   llvm::Align(element_size(out.mem.dtype)));
  if (group) s->setMetadata(llvm::LLVMContext::MD_access_group, group);
}

llvm::Value* Lowering::argument(const KernelInstr& instr, int k) {
  const ArgRef& arg = instr.args[k];
  const ScalarType to = operand_dtype(instr, k);
  llvm::Value* value = nullptr;
  switch (arg.kind) {
    case ArgRef::Scalar: return scalars_.at({arg.index, to});
    case ArgRef::Instr: value = values_[arg.index]; break;
    case ArgRef::Input: value = invariant_[arg.index] ? invariant_[arg.index] : loaded_[arg.index]; break;
  }
  return convert(ir_, value, arg_dtype(spec_, arg), to);
}

void Lowering::evaluate(std::size_t i) {
  const KernelInstr& instr = spec_.instrs[i];
  llvm::Value* args[3] = {};
  for (int k = 0; k < instr.arity; ++k) args[k] = argument(instr, k);
  values_[i] = op_emitter(instr.op).emit(ir_, instr, llvm::ArrayRef(args, instr.arity));
}

// The row-level elementwise instructions whose reductions are complete
// after `depth` loops.
void Lowering::row_values(int depth) {
  for (std::size_t i = 0; i < spec_.instrs.size(); ++i)
    if (phases_.row_level[i] && phases_.depth[i] == depth && !is_reduction(spec_.instrs[i].op)) evaluate(i);
}

// One element of loop `phase`: its instructions, reductions and stores.
void Lowering::element(int phase, llvm::Value* position, llvm::Value* j, llvm::MDNode* group) {
  loaded_.assign(spec_.inputs.size(), nullptr);
  for (std::size_t k = 0; k < spec_.inputs.size(); ++k)
    if (used_[k] && !invariant_[k]) loaded_[k] = load_input(k, add_scaled(offsets_[k], j, inner_stride(spec_.inputs[k])), group);
  for (std::size_t i = 0; i < spec_.instrs.size(); ++i) {
    const KernelInstr& instr = spec_.instrs[i];
    if (is_reduction(instr.op)) {
      if (phases_.depth[i] == phase + 1) accumulate(ir_, instr, accumulators_[i], argument(instr, 0), position);
    } else if (phases_.reload[phase][i]) {
      llvm::LoadInst* value = builder_.CreateLoad(ir_.value_type(instr.out_dtype), row_cache_slot(i, position, j));
      value->setMetadata(llvm::LLVMContext::MD_access_group, group);
      values_[i] = value;
    } else if (phases_.in_loop[phase][i]) {
      evaluate(i);
      if (phases_.cache_loop[i] == phase) {
        llvm::StoreInst* s = builder_.CreateStore(values_[i], row_cache_slot(i, position, j));
        s->setMetadata(llvm::LLVMContext::MD_access_group, group);
      }
    }
  }
  for (std::size_t k = 0; k < spec_.outputs.size(); ++k)
    if (phases_.store_loop[k] == phase)
      store(k, add_scaled(offsets_[output_operand(k)], j, inner_stride(spec_.outputs[k].mem)), group);
}

// Loop `phase` over the row's elements [first, end), linear over the
// reduced dims (all dims for the other forms), in pieces along the inner dim:
//
//   for (q = first; q < end; q += n) {
//     sub = q / inner; col = q % inner; n = min(inner - col, end - q);
//     offsets: row base + split(sub) . strides + col * inner stride
//     (inputs with inner stride 0 are loaded here, once per piece)
//     for (j = 0; j < n; ++j) element(q + j)      // constant strides: vectorized
//   }
//
// A row kernel walks whole rows, so its pieces are whole inner runs:
// q counts pieces (sub = q, col = 0) and n = inner, a constant, which lets
// LLVM drop the remainder loop of long rows and unroll short ones.
// The inner loop's loads and stores form one access group declared
// parallel (llvm.loop.parallel_accesses): by the CompiledFn contract
// iterations never share elements, so no run-time overlap checks are
// needed, and in-place kernels vectorize too. The spec's codegen knobs
// (KernelKnobs) become the loop's vectorize.width / interleave.count hints.
void Lowering::loop(int phase, llvm::Value* first, llvm::Value* end) {
  llvm::LLVMContext& context = builder_.getContext();
  llvm::Function* f = builder_.GetInsertBlock()->getParent();
  llvm::BasicBlock* before = builder_.GetInsertBlock();
  auto* piece_block = llvm::BasicBlock::Create(context, "piece", f);
  auto* inner_block = llvm::BasicBlock::Create(context, "inner", f);
  auto* latch_block = llvm::BasicBlock::Create(context, "piece.latch", f);
  auto* done_block = llvm::BasicBlock::Create(context, "loop.done", f);
  const int last = spec_.ndim - 1;  // -1: a zero-dim kernel, one element
  const bool rows = row_kernel();
  llvm::Value* inner = last >= 0 ? sizes_[last] : builder_.getInt64(1);
  llvm::Value* start = rows ? builder_.getInt64(0) : first;
  // A row kernel's reduced sizes are static (only dim 0 may be dynamic);
  // an empty row has no piece, whose inner loop would run once regardless.
  bool empty_rows = false;
  for (int d = spec_.row_dims; rows && d < spec_.ndim; ++d) empty_rows = empty_rows || spec_.sizes[d] == 0;
  llvm::Value* stop = !rows ? end : empty_rows ? builder_.getInt64(0) : product_of_sizes(spec_.row_dims, last);
  builder_.CreateCondBr(builder_.CreateICmpSLT(start, stop), piece_block, done_block);

  builder_.SetInsertPoint(piece_block);
  llvm::PHINode* q = builder_.CreatePHI(builder_.getInt64Ty(), 2, "q");
  q->addIncoming(start, before);
  const bool split = last > spec_.row_dims;
  llvm::Value* sub = rows ? q : split ? builder_.CreateUDiv(q, inner, "sub") : nullptr;
  llvm::Value* col = rows ? nullptr : split ? builder_.CreateURem(q, inner, "col") : static_cast<llvm::Value*>(q);
  llvm::Value* n = rows ? inner
                        : builder_.CreateBinaryIntrinsic(llvm::Intrinsic::smin, builder_.CreateSub(inner, col),
                                                         builder_.CreateSub(end, q), nullptr, "n");
  llvm::Value* piece_start = rows ? builder_.CreateMul(q, inner, "piece.start") : q;
  std::vector<llvm::Value*> index = split ? split_index(sub, spec_.row_dims, last - 1) : std::vector<llvm::Value*>(spec_.ndim);
  if (last >= 0) index[last] = col;
  offsets_ = offsets_of(index, spec_.row_dims, last, row_base_);
  std::vector<llvm::Value*> row_invariant = invariant_;
  for (std::size_t k = 0; k < spec_.inputs.size(); ++k)
    if (used_[k] && !invariant_[k] && inner_stride(spec_.inputs[k]) == 0) invariant_[k] = load_input(k, offsets_[k], nullptr);

  // With a blocked sum, the inner loop runs over [jb, block_end) for
  // jb = 0, sum_block_, ... < n, each block between begin and end_block.
  const bool in_blocks = blocked(phase);
  llvm::BasicBlock* inner_exit = latch_block;
  llvm::BasicBlock* inner_entry = builder_.GetInsertBlock();
  llvm::Value* jb = builder_.getInt64(0);
  llvm::Value* block_end = n;
  if (!in_blocks) {
    builder_.CreateBr(inner_block);
  } else {
    auto* block_block = llvm::BasicBlock::Create(context, "block", f, inner_block);
    inner_exit = llvm::BasicBlock::Create(context, "block.latch", f, latch_block);
    builder_.CreateBr(block_block);
    builder_.SetInsertPoint(block_block);
    auto* jb_phi = builder_.CreatePHI(builder_.getInt64Ty(), 2, "jb");
    jb_phi->addIncoming(builder_.getInt64(0), inner_entry);
    jb = jb_phi;
    llvm::Value* full = builder_.CreateAdd(jb, builder_.getInt64(sum_block_), "jb.next");
    auto* constant_n = llvm::dyn_cast<llvm::ConstantInt>(n);
    block_end = constant_n && constant_n->getSExtValue() % sum_block_ == 0
                    ? full
                    : builder_.CreateBinaryIntrinsic(llvm::Intrinsic::smin, full, n, nullptr, "block.end");
    blocks(phase, true);
    if (prefetches(phase)) prefetch_next_row(jb);
    builder_.CreateBr(inner_block);
    inner_entry = block_block;

    builder_.SetInsertPoint(inner_exit);
    blocks(phase, false);
    jb_phi->addIncoming(full, inner_exit);
    builder_.CreateCondBr(builder_.CreateICmpSLT(full, n), block_block, latch_block);
  }

  builder_.SetInsertPoint(inner_block);
  llvm::MDNode* group = llvm::MDNode::getDistinct(context, {});
  llvm::PHINode* j = builder_.CreatePHI(builder_.getInt64Ty(), 2, "j");
  j->addIncoming(jb, inner_entry);
  element(phase, builder_.CreateAdd(piece_start, j, "position"), j, group);
  llvm::Value* j_next = builder_.CreateAdd(j, builder_.getInt64(1), "j.next");
  j->addIncoming(j_next, builder_.GetInsertBlock());
  llvm::BranchInst* back = builder_.CreateCondBr(builder_.CreateICmpSLT(j_next, block_end), inner_block, inner_exit);
  back->setMetadata(llvm::LLVMContext::MD_loop, loop_metadata(group));

  builder_.SetInsertPoint(latch_block);
  llvm::Value* q_next = builder_.CreateAdd(q, rows ? builder_.getInt64(1) : n, "q.next");
  q->addIncoming(q_next, latch_block);
  builder_.CreateCondBr(builder_.CreateICmpSLT(q_next, stop), piece_block, done_block);
  builder_.SetInsertPoint(done_block);
  invariant_ = std::move(row_invariant);
}

// One row (the whole range [first, end) for the forms without rows; a row
// kernel's loops walk the whole row): its phases in order, then its
// row-level outputs or partial accumulators.
void Lowering::row(llvm::Value* row_index, llvm::Value* first, llvm::Value* end) {
  row_base_.clear();
  invariant_.assign(spec_.inputs.size(), nullptr);
  if (row_index != nullptr) {
    row_base_ = offsets_of(split_index(row_index, 0, spec_.row_dims - 1), 0, spec_.row_dims - 1, {});
    for (std::size_t k = 0; k < spec_.inputs.size(); ++k)
      if (used_[k] && row_level_input(spec_, k)) invariant_[k] = load_input(k, row_base_[k], nullptr);
  }
  for (std::size_t i = 0; i < spec_.instrs.size(); ++i)
    if (is_reduction(spec_.instrs[i].op)) reset(ir_, spec_.instrs[i], accumulators_[i]);
  row_values(0);
  for (int phase = 0; phase < phases_.loops; ++phase) {
    loop(phase, first, end);
    for (std::size_t i = 0; i < spec_.instrs.size(); ++i)
      if (is_reduction(spec_.instrs[i].op) && phases_.depth[i] == phase + 1 && row_index != nullptr)
        values_[i] = result(ir_, spec_.instrs[i], accumulators_[i]);
    row_values(phase + 1);
  }
  for (std::size_t k = 0; k < spec_.outputs.size(); ++k) {
    if (phases_.store_loop[k] >= 0) continue;
    if (row_index != nullptr) {
      store(k, row_base_[output_operand(k)], nullptr);
    } else {
      const std::int32_t r = spec_.outputs[k].instr;
      store_partial(ir_, spec_.instrs[r], accumulators_[r], bases_[output_operand(k)]);
    }
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
  values_.assign(spec_.instrs.size(), nullptr);
  load_invariants(f);
  llvm::Value* begin = f->getArg(0);
  llvm::Value* end = f->getArg(1);
  if (!row_kernel()) {
    row(nullptr, begin, end);
    builder_.CreateBr(exit);
    return;
  }
  // Rows [begin, end), each over all its elements.
  auto* row_block = llvm::BasicBlock::Create(context, "row", f, exit);
  builder_.CreateCondBr(builder_.CreateICmpSLT(begin, end), row_block, exit);
  builder_.SetInsertPoint(row_block);
  llvm::PHINode* r = builder_.CreatePHI(builder_.getInt64Ty(), 2, "r");
  r->addIncoming(begin, entry);
  row(r, nullptr, nullptr);
  llvm::Value* r_next = builder_.CreateAdd(r, builder_.getInt64(1), "r.next");
  r->addIncoming(r_next, builder_.GetInsertBlock());
  builder_.CreateCondBr(builder_.CreateICmpSLT(r_next, end), row_block, exit);
}

}  // namespace

std::unique_ptr<llvm::Module> lower(const KernelSpec& spec, const std::string& name, llvm::LLVMContext& context,
                                    const llvm::TargetMachine& tm) {
  validate(spec);
  check_dtypes(spec);
  llvm::IRBuilder<> types(context);
  llvm::Type* i64 = types.getInt64Ty();
  llvm::Type* ptr = types.getPtrTy();
  auto [module, f] =
      new_kernel_module(name, llvm::FunctionType::get(types.getVoidTy(), {i64, i64, ptr, ptr}, false), context, tm);
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
  return std::move(module);
}

}  // namespace kiln::jit::codegen
