#include "codegen/loop_storage.hpp"

#include <algorithm>
#include <map>

namespace shard::codegen {

namespace {

int64_t align_up(int64_t n) { return (n + kLoopScratchAlign - 1) / kLoopScratchAlign * kLoopScratchAlign; }

// Small locals in declaration order until the budget is spent (the kernel may run on a
// coroutine's stack, and a body may have thousands of scalars).
std::vector<bool> stack_slots(const LoopKernel& k) {
  std::vector<bool> on_stack(k.vars.size(), false);
  int64_t used = 0;
  for (size_t v = 0; v < k.vars.size(); ++v) {
    const auto& var = k.vars[v];
    if (var.kind != LoopVar::Kind::Local || var.bytes > kLoopStackBytes || used + var.bytes > kLoopStackBudget) continue;
    on_stack[v] = true;
    used += var.bytes;
  }
  return on_stack;
}

class LiveRanges {
 public:
  LiveRanges(const LoopKernel& k, const std::vector<bool>& in_scratch)
      : k_(k), in_scratch_(in_scratch), first_(k.vars.size(), -1), last_(k.vars.size(), -1), under_(k.vars.size()) {
    for (size_t v = 0; v < k.vars.size(); ++v)
      if (in_scratch_[v]) under_[v] = {static_cast<int>(v)};
    bind(k.body);
    for (size_t v = 0; v < k.vars.size(); ++v)  // aliases may be declared before their base is bound
      if (k.vars[v].kind == LoopVar::Kind::Alias) under_[v] = buffers_under(static_cast<int>(v));
    walk(k.body);
  }

  int first(int v) const { return first_[static_cast<size_t>(v)]; }
  int last(int v) const { return last_[static_cast<size_t>(v)]; }

 private:
  // The scratch buffers a Bound var can point at.
  void bind(const std::vector<LoopStmt>& block) {
    for (const auto& st : block) {
      for (const auto& c : st.carries) {  // buffer a may be a destination bound further out
        std::vector<int> both = buffers_under(c.a);
        if (c.b >= 0) both.push_back(c.b);
        for (int v : {c.cur, c.spare}) under_[static_cast<size_t>(v)] = both;
      }
      for (const auto* slices : {&st.xs, &st.ys})
        for (const auto& s : *slices) under_[static_cast<size_t>(s.view)] = buffers_under(s.base);
      for (const auto& b : st.blocks) bind(b);
    }
  }
  std::vector<int> buffers_under(int v) const {
    while (k_.vars[static_cast<size_t>(v)].kind == LoopVar::Kind::Alias) v = k_.vars[static_cast<size_t>(v)].base;
    if (in_scratch_[static_cast<size_t>(v)]) return {v};
    return under_[static_cast<size_t>(v)];
  }

  struct Loop {
    int start, end;  // the loop statement's position and one past its last nested position
  };

  void touch(int var, int pos) {
    for (int v : under_[static_cast<size_t>(var)]) {
      auto& f = first_[static_cast<size_t>(v)];
      auto& l = last_[static_cast<size_t>(v)];
      if (f < 0) f = pos;
      l = std::max(l, pos);
      for (const Loop& loop : loops_)  // enclosing loops that began after v came to life
        if (loop.start >= f && pos > loop.start) l = std::max(l, loop.end);
    }
  }

  // Numbers statements in preorder; a loop's extent is known once its blocks are numbered,
  // so references are taken in a second walk with the extents at hand.
  int number(const std::vector<LoopStmt>& block, int pos) {
    for (const auto& st : block) {
      ++pos;
      for (const auto& b : st.blocks) pos = number(b, pos);
      end_[&st] = pos;
    }
    return pos;
  }

  void walk(const std::vector<LoopStmt>& body) {
    number(body, 0);
    int pos = 0;
    visit(body, pos);
  }

  void visit(const std::vector<LoopStmt>& block, int& pos) {
    for (const auto& st : block) {
      const int at = pos++;
      for (int v : st.in) touch(v, at);
      for (int v : st.out) touch(v, at);
      for (const auto& c : st.carries) {
        touch(c.init, at);
        touch(c.cur, at);
      }
      for (const auto* slices : {&st.xs, &st.ys})
        for (const auto& s : *slices) touch(s.base, at);
      if (st.cond >= 0 && st.kind == LoopStmt::Kind::Cond) touch(st.cond, at);
      const bool loop = st.kind == LoopStmt::Kind::While || st.kind == LoopStmt::Kind::Scan;
      if (loop) loops_.push_back({at, end_.at(&st)});
      for (size_t b = 0; b < st.blocks.size(); ++b) {
        visit(st.blocks[b], pos);
        // A while's predicate is read after its cond block, inside the loop.
        if (st.kind == LoopStmt::Kind::While && b == 0) touch(st.cond, pos);
      }
      if (loop) loops_.pop_back();
    }
  }

  const LoopKernel& k_;
  const std::vector<bool>& in_scratch_;
  std::vector<int> first_, last_;
  std::vector<std::vector<int>> under_;  // per var: the scratch buffers it may point at
  std::map<const LoopStmt*, int> end_;
  std::vector<Loop> loops_;  // enclosing the statement being visited
};

}  // namespace

LoopStorage plan_loop_storage(const LoopKernel& k) {
  LoopStorage s;
  s.on_stack = stack_slots(k);
  std::vector<bool> in_scratch(k.vars.size(), false);
  for (size_t v = 0; v < k.vars.size(); ++v) in_scratch[v] = k.vars[v].kind == LoopVar::Kind::Local && !s.on_stack[v];
  LiveRanges live(k, in_scratch);
  std::vector<int> order;
  for (size_t v = 0; v < k.vars.size(); ++v)
    if (in_scratch[v]) order.push_back(static_cast<int>(v));
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return live.first(a) < live.first(b); });
  s.scratch_offset.assign(k.vars.size(), -1);
  struct Placed {
    int64_t offset, size;
    int last;
  };
  std::vector<Placed> active;  // sorted by offset
  for (int v : order) {
    const int64_t size = align_up(k.vars[static_cast<size_t>(v)].bytes);
    if (live.first(v) < 0) continue;  // never referenced: no storage
    std::erase_if(active, [&](const Placed& p) { return p.last < live.first(v); });
    // First fit between the buffers still live.
    int64_t at = 0;
    auto it = active.begin();
    for (; it != active.end() && it->offset < at + size; ++it) at = std::max(at, it->offset + it->size);
    active.insert(it, {at, size, live.last(v)});
    s.scratch_offset[static_cast<size_t>(v)] = at;
    s.scratch_bytes = std::max(s.scratch_bytes, at + size);
  }
  return s;
}

}  // namespace shard::codegen
