#include "jit/codegen/emit_gemm_tile.h"

#include <vector>

#include <llvm/IR/Constants.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Intrinsics.h>

#include <kiln/error.h>

#include "jit/codegen/kernel_module.h"

namespace kiln::jit::codegen {
namespace {

// Emits the kernel into `f`; see the header for its shape.
class TileEmitter {
 public:
  TileEmitter(const kernels::GemmTileSpec& spec, llvm::Function* f)
      : f_(f),
        b_(f->getContext()),
        elem_(spec.element_bytes == 4 ? b_.getFloatTy() : b_.getDoubleTy()),
        lanes_(spec.vector_bytes / spec.element_bytes),
        mr_(spec.mr),
        nv_(spec.nv),
        nr_(lanes_ * spec.nv),
        vec_(llvm::FixedVectorType::get(elem_, static_cast<unsigned>(lanes_))),
        align_(static_cast<std::uint64_t>(spec.element_bytes)) {}

  void emit() {
    llvm::Value* kc = f_->getArg(0);
    llvm::Value* a = f_->getArg(1);
    llvm::Value* bp = f_->getArg(2);
    llvm::Value* c = f_->getArg(3);
    llvm::Value* rs_c = f_->getArg(4);
    llvm::Value* cs_c = f_->getArg(5);
    llvm::Value* rows = f_->getArg(6);
    llvm::Value* cols = f_->getArg(7);

    auto* entry = block("entry");
    auto* loop = block("k.loop");
    auto* done = block("k.done");
    b_.SetInsertPoint(entry);
    llvm::Value* accumulate = b_.CreateICmpNE(f_->getArg(8), b_.getInt32(0), "accumulate");
    // The C tile is read (and written) only after the loop: fetch it now.
    // A prefetch never faults, so rows past `rows` need no guard.
    for (int i = 0; i < mr_; ++i)
      for (int j = 0; j < nv_; ++j)
        b_.CreateIntrinsic(llvm::Intrinsic::prefetch, {b_.getPtrTy()},
                           {c_element(c, rs_c, i, j * lanes_), b_.getInt32(1), b_.getInt32(3), b_.getInt32(1)});
    llvm::Value* zero = llvm::ConstantAggregateZero::get(vec_);
    b_.CreateCondBr(b_.CreateICmpSGT(kc, b_.getInt64(0)), loop, done);

    // for k in [0, kc): acc[i][j] += a[k][i] * b[k][j]
    b_.SetInsertPoint(loop);
    llvm::PHINode* k = b_.CreatePHI(b_.getInt64Ty(), 2, "k");
    k->addIncoming(b_.getInt64(0), entry);
    std::vector<llvm::PHINode*> acc;
    for (int t = 0; t < mr_ * nv_; ++t) {
      acc.push_back(b_.CreatePHI(vec_, 2, "acc"));
      acc.back()->addIncoming(zero, entry);
    }
    std::vector<llvm::Value*> bv;
    llvm::Value* b_row = b_.CreateMul(k, b_.getInt64(nr_));
    for (int j = 0; j < nv_; ++j)
      bv.push_back(b_.CreateAlignedLoad(vec_, b_.CreateGEP(elem_, bp, b_.CreateAdd(b_row, b_.getInt64(j * lanes_))),
                                        align_, "bv"));
    llvm::Value* a_row = b_.CreateMul(k, b_.getInt64(mr_));
    std::vector<llvm::Value*> next(acc.size());
    for (int i = 0; i < mr_; ++i) {
      llvm::Value* ai = b_.CreateAlignedLoad(elem_, b_.CreateGEP(elem_, a, b_.CreateAdd(a_row, b_.getInt64(i))), align_);
      llvm::Value* splat = b_.CreateVectorSplat(static_cast<unsigned>(lanes_), ai, "ai");
      for (int j = 0; j < nv_; ++j)
        next[i * nv_ + j] = b_.CreateIntrinsic(llvm::Intrinsic::fma, {vec_}, {splat, bv[j], acc[i * nv_ + j]});
    }
    llvm::Value* k_next = b_.CreateAdd(k, b_.getInt64(1), "k.next");
    k->addIncoming(k_next, loop);
    for (std::size_t t = 0; t < acc.size(); ++t) acc[t]->addIncoming(next[t], loop);
    b_.CreateCondBr(b_.CreateICmpSLT(k_next, kc), loop, done);

    b_.SetInsertPoint(done);
    std::vector<llvm::Value*> sums;
    for (std::size_t t = 0; t < acc.size(); ++t) {
      llvm::PHINode* sum = b_.CreatePHI(vec_, 2, "sum");
      sum->addIncoming(zero, entry);
      sum->addIncoming(next[t], loop);
      sums.push_back(sum);
    }
    llvm::Value* full = b_.CreateAnd(
        b_.CreateAnd(b_.CreateICmpEQ(rows, b_.getInt32(mr_)), b_.CreateICmpEQ(cols, b_.getInt32(nr_))),
        b_.CreateICmpEQ(cs_c, b_.getInt64(1)), "full");
    auto* full_tile = block("full");
    auto* edge_tile = block("edge");
    b_.CreateCondBr(full, full_tile, edge_tile);

    // A full tile of contiguous rows: vector stores (after vector loads).
    auto* add_c = block("full.add");
    auto* set_c = block("full.set");
    b_.SetInsertPoint(full_tile);
    b_.CreateCondBr(accumulate, add_c, set_c);
    for (bool add : {true, false}) {
      b_.SetInsertPoint(add ? add_c : set_c);
      for (int i = 0; i < mr_; ++i)
        for (int j = 0; j < nv_; ++j) {
          llvm::Value* p = c_element(c, rs_c, i, j * lanes_);
          llvm::Value* v = sums[i * nv_ + j];
          if (add) v = b_.CreateFAdd(v, b_.CreateAlignedLoad(vec_, p, align_));
          b_.CreateAlignedStore(v, p, align_);
        }
      b_.CreateRetVoid();
    }

    // An edge tile or a strided C: the tile through memory, element by element.
    b_.SetInsertPoint(edge_tile);
    llvm::Value* tile = entry_alloca(llvm::ArrayType::get(elem_, static_cast<std::uint64_t>(mr_ * nr_)));
    for (int i = 0; i < mr_; ++i)
      for (int j = 0; j < nv_; ++j)
        b_.CreateAlignedStore(sums[i * nv_ + j], b_.CreateGEP(elem_, tile, b_.getInt64(i * nr_ + j * lanes_)), align_);
    llvm::Value* rows64 = b_.CreateSExt(rows, b_.getInt64Ty());
    llvm::Value* cols64 = b_.CreateSExt(cols, b_.getInt64Ty());
    counted_loop(rows64, "i", [&](llvm::Value* i) {
      counted_loop(cols64, "j", [&](llvm::Value* j) {
        llvm::Value* dst = b_.CreateGEP(elem_, c, b_.CreateAdd(b_.CreateMul(i, rs_c), b_.CreateMul(j, cs_c)));
        llvm::Value* v = b_.CreateAlignedLoad(
            elem_, b_.CreateGEP(elem_, tile, b_.CreateAdd(b_.CreateMul(i, b_.getInt64(nr_)), j)), align_);
        // Reading C when not accumulating is harmless (the tile's elements exist); select the value.
        llvm::Value* old = b_.CreateAlignedLoad(elem_, dst, align_);
        b_.CreateAlignedStore(b_.CreateSelect(accumulate, b_.CreateFAdd(v, old), v), dst, align_);
      });
    });
    b_.CreateRetVoid();
  }

 private:
  llvm::BasicBlock* block(const char* name) { return llvm::BasicBlock::Create(f_->getContext(), name, f_); }

  // &c[i * rs_c + col].
  llvm::Value* c_element(llvm::Value* c, llvm::Value* rs_c, int i, int col) {
    return b_.CreateGEP(elem_, c, b_.CreateAdd(b_.CreateMul(b_.getInt64(i), rs_c), b_.getInt64(col)));
  }

  llvm::Value* entry_alloca(llvm::Type* type) {
    llvm::IRBuilder<> at(&f_->getEntryBlock(), f_->getEntryBlock().begin());
    llvm::AllocaInst* slot = at.CreateAlloca(type, nullptr, "tile");
    slot->setAlignment(llvm::Align(64));
    return slot;
  }

  // for (v = 0; v < count; ++v) body(v), with count >= 1 (a tile has a row and a column).
  template <class Body>
  void counted_loop(llvm::Value* count, const char* name, Body&& body) {
    llvm::BasicBlock* before = b_.GetInsertBlock();
    auto* loop = block(name);
    auto* after = block("after");
    b_.CreateBr(loop);
    b_.SetInsertPoint(loop);
    llvm::PHINode* v = b_.CreatePHI(b_.getInt64Ty(), 2, name);
    v->addIncoming(b_.getInt64(0), before);
    body(v);
    llvm::Value* v_next = b_.CreateAdd(v, b_.getInt64(1));
    v->addIncoming(v_next, b_.GetInsertBlock());
    b_.CreateCondBr(b_.CreateICmpSLT(v_next, count), loop, after);
    b_.SetInsertPoint(after);
  }

  llvm::Function* f_;
  llvm::IRBuilder<> b_;
  llvm::Type* elem_;
  int lanes_, mr_, nv_, nr_;
  llvm::FixedVectorType* vec_;
  llvm::Align align_;
};

}  // namespace

std::unique_ptr<llvm::Module> lower_gemm_tile(const kernels::GemmTileSpec& spec, const std::string& name,
                                              llvm::LLVMContext& context, const llvm::TargetMachine& tm) {
  if ((spec.element_bytes != 4 && spec.element_bytes != 8) || (spec.vector_bytes != 32 && spec.vector_bytes != 64) ||
      !kernels::tile_fits(spec.vector_bytes, spec.mr, spec.nv))
    throw ValueError(detail::cat("gemm tile ", spec.mr, "x", spec.nv, " of ", spec.vector_bytes,
                                 "-byte vectors of ", spec.element_bytes, "-byte elements: no such kernel"));
  llvm::IRBuilder<> types(context);
  llvm::Type* i64 = types.getInt64Ty();
  llvm::Type* i32 = types.getInt32Ty();
  llvm::Type* ptr = types.getPtrTy();
  auto [module, f] = new_kernel_module(
      name, llvm::FunctionType::get(types.getVoidTy(), {i64, ptr, ptr, ptr, i64, i64, i32, i32, i32}, false), context,
      tm);
  for (unsigned k : {1u, 2u}) {
    f->addParamAttr(k, llvm::Attribute::NoAlias);
    f->addParamAttr(k, llvm::Attribute::ReadOnly);
  }
  f->addParamAttr(3, llvm::Attribute::NoAlias);
  const char* names[] = {"kc", "a", "b", "c", "rs_c", "cs_c", "rows", "cols", "accumulate_flag"};
  for (unsigned k = 0; k < 9; ++k) f->getArg(k)->setName(names[k]);
  TileEmitter(spec, f).emit();
  return std::move(module);
}

}  // namespace kiln::jit::codegen
