// The abstract syntax tree of a .shard program (a Python subset).
// Produced by grammar/ (parse.hpp), consumed by src/interp/. Every node carries the
// source location of its first character so errors can point at the user's code.
#pragma once
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace shard::ast {

// A source position. `file` indexes the global SourceFiles table (source.hpp).
struct Loc {
  uint32_t file = 0;
  uint32_t line = 0;  // 1-based; 0 = unknown
  uint32_t col = 0;   // 1-based, in characters of the original line
};

struct Expr;
struct Stmt;
using ExprP = std::shared_ptr<Expr>;
using StmtP = std::shared_ptr<Stmt>;
using Body = std::vector<StmtP>;

// Every expression kind, declared once. X(Name)
#define SHARD_EXPR_KINDS(X)                                                       \
  X(Name)        /* id */                                                         \
  X(Int)         /* int_value */                                                  \
  X(Float)       /* float_value */                                                \
  X(Str)         /* str_value (already unescaped; implicit concatenation done) */ \
  X(FString)     /* parts: Str literals and FormattedValue */                     \
  X(FormattedValue) /* a = value, conversion ('r','s','a' or 0), b = format spec  \
                       (an FString or null), str_value = "expr=" text for {e=} */ \
  X(Bool)        /* bool_value */                                                 \
  X(NoneLit)                                                                      \
  X(EllipsisLit)                                                                  \
  X(Tuple)       /* elts (may contain Starred) */                                 \
  X(List)        /* elts */                                                       \
  X(Set)         /* elts */                                                       \
  X(Dict)        /* keys, values; a null key means `**values[i]` */               \
  X(BinOp)       /* op, a, b */                                                   \
  X(UnaryOp)     /* op (Neg, Pos, Invert, Not), a */                              \
  X(BoolOp)      /* op (And, Or), elts (>= 2) */                                  \
  X(Compare)     /* a, cmp_ops, elts = comparators (chained) */                   \
  X(IfExp)       /* a = test, b = body, c = orelse */                             \
  X(Lambda)      /* params, a = body */                                           \
  X(Call)        /* a = func, args (Starred for *x), keywords */                  \
  X(Attribute)   /* a = value, id = attr */                                       \
  X(Subscript)   /* a = value, b = index (Slice / Tuple of them / expr) */        \
  X(Slice)       /* a = lower, b = upper, c = step (each may be null) */          \
  X(Starred)     /* a */                                                          \
  X(ListComp)    /* a = element, comps */                                         \
  X(SetComp)     /* a = element, comps */                                         \
  X(DictComp)    /* a = key, b = value, comps */                                  \
  X(GeneratorExp)/* a = element, comps (a lazy generator) */                      \
  X(NamedExpr)   /* a = target (Name), b = value  (walrus :=) */                  \
  X(Yield)       /* a = value (may be null) */                                    \
  X(YieldFrom)   /* a = the iterable delegated to */                            \
  X(Imag)        /* float_value: an imaginary literal (2.5j is 2.5) */

enum class ExprKind : uint8_t {
#define X(n) n,
  SHARD_EXPR_KINDS(X)
#undef X
};
const char* expr_kind_name(ExprKind k);

enum class BinOpKind : uint8_t { Add, Sub, Mul, Div, FloorDiv, Mod, Pow, MatMul, LShift, RShift, BitOr, BitXor, BitAnd };
enum class UnaryOpKind : uint8_t { Neg, Pos, Invert, Not };
enum class BoolOpKind : uint8_t { And, Or };
enum class CmpOpKind : uint8_t { Eq, NotEq, Lt, LtE, Gt, GtE, Is, IsNot, In, NotIn };
const char* binop_symbol(BinOpKind k);      // "+", "-", ...
const char* cmpop_symbol(CmpOpKind k);      // "==", "is not", ...

// A function or lambda parameter list: def f(a, b=1, *args, c, d=2, **kw)
struct Param {
  std::string name;
  ExprP default_value;  // null if none
  Loc loc;
};
struct Params {
  std::vector<Param> positional;   // before *args (may have defaults)
  std::optional<Param> vararg;     // *args
  std::vector<Param> kwonly;       // after *args or a bare *
  std::optional<Param> kwarg;      // **kwargs
};

struct Keyword {
  std::string name;  // empty means **value
  ExprP value;
  Loc loc;
};

// for target in iter if cond1 if cond2
struct Comprehension {
  ExprP target;
  ExprP iter;
  std::vector<ExprP> ifs;
};

struct Expr {
  ExprKind kind;
  Loc loc;
  // Payload; which fields are used depends on `kind` (see SHARD_EXPR_KINDS).
  std::string id;            // Name, Attribute attr
  int64_t int_value = 0;
  double float_value = 0;
  bool bool_value = false;
  std::string str_value;
  union {
    BinOpKind binop;
    UnaryOpKind unop;
    BoolOpKind boolop;
    char conversion;
  };
  ExprP a, b, c;
  std::vector<ExprP> elts;         // Tuple/List/Set elements, BoolOp operands, Compare comparators, FString parts, Call args
  std::vector<ExprP> keys;         // Dict keys
  std::vector<CmpOpKind> cmp_ops;  // Compare
  std::vector<Keyword> keywords;   // Call
  std::vector<Comprehension> comps;
  std::shared_ptr<Params> params;  // Lambda

  Expr(ExprKind k, Loc l) : kind(k), loc(l), conversion(0) {}
  // Iterative: a long chain (1+1+...+1 has as many nested BinOps as terms) would overflow the
  // C++ stack if each node destroyed its children recursively.
  ~Expr();
  Expr(const Expr&) = default;
  Expr& operator=(const Expr&) = default;
};

ExprP make_expr(ExprKind k, Loc loc);

#define SHARD_STMT_KINDS(X)                                                         \
  X(ExprStmt)    /* value */                                                        \
  X(Assign)      /* targets (a = b = value), value */                               \
  X(AugAssign)   /* target, binop, value */                                         \
  X(AnnAssign)   /* target, annotation, value (may be null) */                      \
  X(FunctionDef) /* name, params, body, decorators */                               \
  X(ClassDef)    /* name, bases, keywords, body, decorators */                      \
  X(Return)      /* value (may be null) */                                          \
  X(If)          /* test, body, orelse (elif = nested If in orelse) */              \
  X(For)         /* target, iter, body, orelse */                                   \
  X(While)       /* test, body, orelse */                                           \
  X(Break)                                                                          \
  X(Continue)                                                                       \
  X(Pass)                                                                           \
  X(With)        /* items, body */                                                  \
  X(Try)         /* body, handlers, orelse, finalbody */                            \
  X(Raise)       /* value = exc (may be null), cause (from X, may be null) */       \
  X(Assert)      /* test, msg (may be null) */                                      \
  X(Import)      /* aliases: name = dotted module, asname */                        \
  X(ImportFrom)  /* module (dotted), aliases (name "*" for star), level (dots) */   \
  X(Global)      /* names */                                                        \
  X(Nonlocal)    /* names */                                                        \
  X(Delete)      /* targets */

enum class StmtKind : uint8_t {
#define X(n) n,
  SHARD_STMT_KINDS(X)
#undef X
};
const char* stmt_kind_name(StmtKind k);

struct Alias {
  std::string name;    // dotted for Import
  std::string asname;  // empty if none
  Loc loc;
};

struct WithItem {
  ExprP context;
  ExprP target;  // may be null
};

struct ExceptHandler {
  ExprP type;        // null = bare except
  std::string name;  // empty if no `as`
  Body body;
  Loc loc;
};

struct Stmt {
  StmtKind kind;
  Loc loc;
  ExprP value;                 // ExprStmt, Assign, AugAssign, AnnAssign, Return, Raise(exc)
  ExprP target;                // AugAssign, AnnAssign, For
  ExprP test;                  // If, While, Assert
  ExprP iter;                  // For
  ExprP cause;                 // Raise ... from cause
  ExprP msg;                   // Assert
  ExprP annotation;            // AnnAssign
  BinOpKind binop = BinOpKind::Add;  // AugAssign
  std::vector<ExprP> targets;  // Assign (chained), Delete
  std::string name;            // FunctionDef/ClassDef name; ImportFrom module
  int level = 0;               // ImportFrom relative dots
  std::shared_ptr<Params> params;  // FunctionDef
  std::vector<ExprP> decorators;
  std::vector<ExprP> bases;        // ClassDef
  std::vector<Keyword> keywords;   // ClassDef (metaclass= etc., ignored)
  Body body, orelse, finalbody;
  std::vector<ExceptHandler> handlers;
  std::vector<WithItem> items;
  std::vector<Alias> aliases;
  std::vector<std::string> names;  // Global, Nonlocal

  Stmt(StmtKind k, Loc l) : kind(k), loc(l) {}
};

StmtP make_stmt(StmtKind k, Loc loc);

struct Module {
  uint32_t file = 0;
  Body body;
};

// Debug dump of the tree (used by tests and `--emit=ast`); stable, one node per line.
std::string dump(const Module& m);
std::string dump(const Expr& e);

}  // namespace shard::ast
