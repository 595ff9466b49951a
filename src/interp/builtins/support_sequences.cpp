// Helpers for sequences (see support.hpp): iterators over a next() function, collecting an
// iterable, slice indices as CPython normalises them, and a stable sort whose comparisons may
// raise.
#include <algorithm>

#include "interp/builtins/support.hpp"

namespace shard::interp::bi {

// ---- iterating ----

Value make_iterator(ClassP cls, std::function<std::optional<Value>()> next) {
  return std::make_shared<IteratorObj>(cls ? std::move(cls) : T().iterator, std::move(next));
}

std::vector<Value> collect(Interp& I, const Value& iterable) {
  if (iterable->kind == ObjKind::List) return static_cast<ListObj&>(*iterable).items;
  if (iterable->kind == ObjKind::Tuple) return static_cast<TupleObj&>(*iterable).items;
  if (iterable->kind == ObjKind::Range && iterable->cls.get() == T().range.get()) {
    auto& r = static_cast<RangeObj&>(*iterable);
    int64_t n = range_len(r);
    if (n > (int64_t(1) << 27)) I.raise("MemoryError", "");
    std::vector<Value> out;
    out.reserve(size_t(n));
    for (int64_t i = 0, v = r.start; i < n; ++i, v = int64_t(uint64_t(v) + uint64_t(r.step))) out.push_back(make_int(v));
    return out;
  }
  return I.to_vector(iterable);
}

// ---- slicing ----

SliceIdx slice_indices(Interp& I, const SliceObj& s, int64_t len) {
  const char* msg = "slice indices must be integers or None or have an __index__ method";
  int64_t step = 1;
  if (s.step && s.step->kind != ObjKind::None) {
    auto st = try_index(I, s.step);
    if (!st) I.raise("TypeError", msg);
    step = *st;
    if (step == 0) I.raise("ValueError", "slice step cannot be zero");
    if (step < -INT64_MAX) step = -INT64_MAX;
  }
  int64_t start, stop;
  if (!s.start || s.start->kind == ObjKind::None) start = step < 0 ? INT64_MAX : 0;
  else {
    auto v = try_index(I, s.start);
    if (!v) I.raise("TypeError", msg);
    start = *v;
  }
  if (!s.stop || s.stop->kind == ObjKind::None) stop = step < 0 ? INT64_MIN : INT64_MAX;
  else {
    auto v = try_index(I, s.stop);
    if (!v) I.raise("TypeError", msg);
    stop = *v;
  }
  if (start < 0) {
    start += len;
    if (start < 0) start = step < 0 ? -1 : 0;
  } else if (start >= len) {
    start = step < 0 ? len - 1 : len;
  }
  if (stop < 0) {
    stop += len;
    if (stop < 0) stop = step < 0 ? -1 : 0;
  } else if (stop >= len) {
    stop = step < 0 ? len - 1 : len;
  }
  int64_t n = 0;
  if (step < 0) {
    if (stop < start) n = (start - stop - 1) / (-step) + 1;
  } else if (start < stop) {
    n = (stop - start - 1) / step + 1;
  }
  return {start, stop, step, n};
}

// ---- sorting ----

namespace {
// Keys of one primitive kind compare without the interpreter (and cannot raise), so they
// can be sorted with std::stable_sort. Returns false when the keys are mixed.
template <class Key, class Get>
bool sort_primitive(std::vector<Value>& v, const std::vector<Value>& k, bool reverse, ObjKind kind, Get get) {
  size_t n = v.size();
  std::vector<std::pair<Key, size_t>> rows;
  rows.reserve(n);
  for (size_t i = 0; i < n; ++i) {
    const Value& x = k[reverse ? n - 1 - i : i];
    if (x->kind != kind) return false;
    rows.emplace_back(get(x), reverse ? n - 1 - i : i);
  }
  std::stable_sort(rows.begin(), rows.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<Value> out(n);
  for (size_t i = 0; i < n; ++i) out[reverse ? n - 1 - i : i] = v[rows[i].second];
  v = std::move(out);
  return true;
}
}  // namespace

void stable_sort(Interp& I, std::vector<Value>& v, const std::vector<Value>* keys, bool reverse) {
  size_t n = v.size();
  const std::vector<Value>& k = keys ? *keys : v;
  if (n > 1) {
    ObjKind k0 = k[0]->kind;
    if (k0 == ObjKind::Int &&
        sort_primitive<int64_t>(v, k, reverse, k0, [](const Value& x) { return static_cast<IntObj&>(*x).v; }))
      return;
    if (k0 == ObjKind::Str &&
        sort_primitive<std::string_view>(v, k, reverse, k0, [](const Value& x) { return std::string_view(static_cast<StrObj&>(*x).v); }))
      return;
  }
  std::vector<size_t> idx(n);
  for (size_t i = 0; i < n; ++i) idx[i] = reverse ? n - 1 - i : i;
  auto less = [&](size_t a, size_t b) { return lt_fast(I, k[a], k[b]); };
  // insertion sort on small runs, then bottom-up merges (stable: ties keep left first)
  const size_t run = 16;
  for (size_t lo = 0; lo < n; lo += run) {
    size_t hi = std::min(n, lo + run);
    for (size_t i = lo + 1; i < hi; ++i) {
      size_t x = idx[i], j = i;
      while (j > lo && less(x, idx[j - 1])) {
        idx[j] = idx[j - 1];
        --j;
      }
      idx[j] = x;
    }
  }
  std::vector<size_t> tmp(n);
  for (size_t width = run; width < n; width *= 2) {
    for (size_t lo = 0; lo < n; lo += 2 * width) {
      size_t mid = std::min(n, lo + width), hi = std::min(n, lo + 2 * width);
      size_t i = lo, j = mid, o = lo;
      if (mid >= hi || !less(idx[mid], idx[mid - 1])) {  // already ordered
        std::copy(idx.begin() + long(lo), idx.begin() + long(hi), tmp.begin() + long(lo));
        continue;
      }
      while (i < mid && j < hi) tmp[o++] = less(idx[j], idx[i]) ? idx[j++] : idx[i++];
      while (i < mid) tmp[o++] = idx[i++];
      while (j < hi) tmp[o++] = idx[j++];
    }
    idx.swap(tmp);
  }
  std::vector<Value> out(n);
  for (size_t i = 0; i < n; ++i) out[reverse ? n - 1 - i : i] = v[idx[i]];
  v = std::move(out);
}

}  // namespace shard::interp::bi
