// The `copy` module: shallow copies (copy.copy) and deep copies with a memo
// (copy.deepcopy), honouring __copy__/__deepcopy__.
#include <fmt/format.h>

#include <unordered_map>

#include "interp/builtins/support.hpp"

namespace shard::interp::bi {

namespace {

// ---- copy ----

bool is_atomic(const Value& v) {
  switch (v->kind) {
    case ObjKind::None: case ObjKind::NotImplemented: case ObjKind::Ellipsis: case ObjKind::Bool:
    case ObjKind::Int: case ObjKind::Float: case ObjKind::Str: case ObjKind::Range: case ObjKind::Function:
    case ObjKind::Builtin: case ObjKind::Class: case ObjKind::Module: case ObjKind::Property:
      return true;
    default:
      return false;
  }
}

Value shallow_copy(Interp& I, const Value& x) {
  if (is_atomic(x) || x->kind == ObjKind::Tuple || x->kind == ObjKind::FrozenSet) return x;
  if (auto* m = x->cls->lookup("__copy__")) return I.call(*m, std::vector<Value>{x});
  if (x->kind == ObjKind::Instance) {
    auto& src = static_cast<InstanceObj&>(*x);
    auto out = std::make_shared<InstanceObj>(x->cls);
    out->dict = src.dict;
    if (src.native) out->native = shallow_copy(I, src.native);
    if (src.exc) out->exc = std::make_shared<ExcInfo>(*src.exc);
    return out;
  }
  if (x->kind == ObjKind::List && x->cls.get() == T().list.get()) return make_list(static_cast<ListObj&>(*x).items);
  if ((x->kind == ObjKind::Dict && x->cls.get() == T().dict.get()) || (x->kind == ObjKind::Set && x->cls.get() == T().set.get())) {
    auto& d = static_cast<DictObj&>(*x);
    std::shared_ptr<DictObj> out = x->kind == ObjKind::Set ? std::shared_ptr<DictObj>(make_set(false)) : make_dict();
    out->entries = d.items();
    out->live = out->entries.size();
    if (d.live == d.entries.size()) out->index = d.index;
    else {
      out->entries.clear();
      out->live = 0;
      for (auto& [k, v] : d.items()) out->set(I, k, v);
    }
    return out;
  }
  if (auto c = I.try_getattr(x, "copy")) return I.call(*c, std::vector<Value>{});
  return x;
}

struct DeepCopier {
  Interp& I;
  std::unordered_map<const Object*, Value> memo;
  Value memo_dict;  // passed to user __deepcopy__ methods
  int depth = 0;

  Value copy(const Value& x) {
    if (is_atomic(x)) return x;
    auto it = memo.find(x.get());
    if (it != memo.end()) return it->second;
    DepthGuard guard(I, " while calling a Python object");
    if (auto* m = x->cls->lookup("__deepcopy__")) {
      if (!memo_dict) memo_dict = make_dict();
      Value r = I.call(*m, std::vector<Value>{x, memo_dict});
      memo[x.get()] = r;
      return r;
    }
    switch (x->kind) {
      case ObjKind::List: {
        auto out = std::make_shared<ListObj>(x->cls, std::vector<Value>{});
        memo[x.get()] = out;
        for (auto& v : static_cast<ListObj&>(*x).items) out->items.push_back(copy(v));
        return out;
      }
      case ObjKind::Tuple: {
        auto& t = static_cast<TupleObj&>(*x);
        std::vector<Value> items;
        bool same = true;
        for (auto& v : t.items) {
          items.push_back(copy(v));
          if (items.back().get() != v.get()) same = false;
        }
        if (same) return x;
        auto it2 = memo.find(x.get());
        if (it2 != memo.end()) return it2->second;
        Value out = std::make_shared<TupleObj>(x->cls, std::move(items));
        memo[x.get()] = out;
        return out;
      }
      case ObjKind::Dict: case ObjKind::Set: case ObjKind::FrozenSet: {
        auto& d = static_cast<DictObj&>(*x);
        std::shared_ptr<DictObj> out;
        if (x->kind == ObjKind::Dict) out = std::make_shared<DictObj>(x->cls);
        else out = std::make_shared<SetObj>(x->cls, x->kind == ObjKind::FrozenSet);
        memo[x.get()] = out;
        for (auto& [k, v] : d.items()) out->set(I, copy(k), v ? copy(v) : v);
        return out;
      }
      case ObjKind::Instance: {
        auto& src = static_cast<InstanceObj&>(*x);
        auto out = std::make_shared<InstanceObj>(x->cls);
        memo[x.get()] = out;
        if (src.exc) out->exc = std::make_shared<ExcInfo>(*src.exc);
        if (src.native) out->native = copy(src.native);
        for (auto& [k, v] : src.dict.entries)
          if (v) out->dict.set(k, copy(v));
        return out;
      }
      default:
        return shallow_copy(I, x);
    }
  }
};

void fill_copy_module(Interp& I, ModuleObj& m) {
  m.dict.set("copy", make_builtin("copy", [](Interp& I, CallArgs& a) {
               func_nargs(I, a, "copy", 1, 1);
               return shallow_copy(I, a.args[0]);
             }));
  m.dict.set("deepcopy", make_builtin("deepcopy", [](Interp& I, CallArgs& a) {
               ArgParser p(I, a, "deepcopy", {"x", "memo="});
               DeepCopier c{I};
               if (p.has("memo") && p.get("memo")->kind == ObjKind::Dict) c.memo_dict = p.get("memo");
               return c.copy(p.get("x"));
             }));
  m.dict.set("Error", exc_class("Exception"));
}

}  // namespace

void register_copy_module() { Interp::register_builtin_module("copy", fill_copy_module); }

}  // namespace shard::interp::bi
