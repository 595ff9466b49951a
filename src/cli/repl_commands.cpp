// The REPL's `:` commands. Each evaluates its operands in __main__ and reports errors in the
// script format, like any chunk.
#include <algorithm>
#include <cctype>
#include <chrono>
#include <iostream>
#include <optional>

#include <fmt/format.h>

#include "api/objects/array_value.hpp"
#include "api/transforms/jit_stats.hpp"
#include "cli/repl_session.hpp"
#include "exec/stage_timing.hpp"

namespace shard::cli {
using interp::Value;

namespace {

constexpr const char* kHelp =
    "Type Python (JAX) code; a block ends with an empty line. Expression values are shown\n"
    "with repr. Ctrl-C interrupts a computation or clears the input, Ctrl-D exits.\n"
    "Tab completes names, attributes and module members.\n"
    "\n"
    "commands:\n"
    "  :help            this text\n"
    "  :type EXPR       the value's type with its sharding (jax.typeof)\n"
    "  :ir FN ARGS      the traced IR of FN applied to ARGS (jax.make_jaxpr(FN)(ARGS));\n"
    "                   ARGS as in a call: `:ir f x w`, `:ir f x + 1, w`, `:ir f(x, n=2)`\n"
    "  :ledger FN ARGS  the collectives of jax.jit(FN) compiled for ARGS, per device\n"
    "  :devices         the simulated devices\n"
    "  :time EXPR       evaluate EXPR (waiting for its arrays): the wall time, split into\n"
    "                   compiling (tracing + compiling: a first call only) and running\n"
    "  :load FILE       run FILE in this session's namespace\n"
    "  :reset           forget every name (a fresh interpreter)\n"
    "  :quit            leave (as Ctrl-D)\n";

std::string trim_spaces(const std::string& s) {
  const size_t b = s.find_first_not_of(" \t"), e = s.find_last_not_of(" \t");
  return b == std::string::npos ? std::string() : s.substr(b, e - b + 1);
}

// The pieces of `s` between separators that are outside brackets and string literals; `sep`
// says which characters separate. Runs of separators give no empty pieces.
template <class Sep>
std::vector<std::string> split_top_level(const std::string& s, Sep sep) {
  std::vector<std::string> pieces;
  std::string cur;
  int depth = 0;
  char quote = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    if (quote) {
      cur += c;
      if (c == '\\' && i + 1 < s.size()) cur += s[++i];
      else if (c == quote) quote = 0;
      continue;
    }
    if (c == '\'' || c == '"') quote = c;
    else if (c == '(' || c == '[' || c == '{') ++depth;
    else if ((c == ')' || c == ']' || c == '}') && depth > 0) --depth;
    if (depth == 0 && sep(c)) {
      if (!trim_spaces(cur).empty()) pieces.push_back(trim_spaces(cur));
      cur.clear();
      continue;
    }
    cur += c;
  }
  if (!trim_spaces(cur).empty()) pieces.push_back(trim_spaces(cur));
  return pieces;
}

bool is_space(char c) { return c == ' ' || c == '\t'; }

bool is_name_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.'; }

// `f(a, w)`: the callee (a dotted name) and the text between its parentheses, when the whole
// operand is one call.
std::optional<std::pair<std::string, std::string>> as_call(const std::string& s) {
  size_t open = 0;
  while (open < s.size() && is_name_char(s[open])) ++open;
  if (open == 0 || open >= s.size() || s[open] != '(' || s.back() != ')') return std::nullopt;
  // The parenthesis opened after the name must be the one that closes the text.
  int depth = 0;
  char quote = 0;
  for (size_t i = open; i < s.size(); ++i) {
    if (quote) {
      if (s[i] == '\\') ++i;
      else if (s[i] == quote) quote = 0;
    } else if (s[i] == '\'' || s[i] == '"') {
      quote = s[i];
    } else if (s[i] == '(') {
      ++depth;
    } else if (s[i] == ')' && --depth == 0 && i + 1 != s.size()) {
      return std::nullopt;
    }
  }
  return std::pair{s.substr(0, open), s.substr(open + 1, s.size() - open - 2)};
}

// `name=expr` (a keyword argument), not `a == b`.
std::optional<std::pair<std::string, std::string>> as_keyword(const std::string& arg) {
  size_t n = 0;
  while (n < arg.size() && (std::isalnum(static_cast<unsigned char>(arg[n])) || arg[n] == '_')) ++n;
  size_t eq = n;
  while (eq < arg.size() && is_space(arg[eq])) ++eq;
  if (n == 0 || std::isdigit(static_cast<unsigned char>(arg[0])) || eq >= arg.size() || arg[eq] != '=' ||
      (eq + 1 < arg.size() && arg[eq + 1] == '='))
    return std::nullopt;
  return std::pair{arg.substr(0, n), trim_spaces(arg.substr(eq + 1))};
}

std::pair<std::string, std::string> split_first_word(const std::string& s) {
  size_t end = s.find_first_of(" \t");
  if (end == std::string::npos) return {s, ""};
  size_t rest = s.find_first_not_of(" \t", end);
  return {s.substr(0, end), rest == std::string::npos ? "" : s.substr(rest)};
}

}  // namespace

Value ReplSession::jax_attr(const char* name) {
  return interp_->getattr(interp_->import_module("jax", ast::Loc{}), name);
}

// "FN ARGS" read like the call FN(ARGS): `f(a, w)` itself, or `f a w` (arguments separated by
// spaces) or `f a + 1, w` (by commas, when there is one outside brackets). Each argument is
// evaluated on its own, so an error points into it; `name=expr` is a keyword argument.
std::pair<Value, interp::CallArgs> ReplSession::eval_fn_args(const std::string& arg) {
  const std::string text = trim_spaces(arg);
  std::string fn_text;
  std::vector<std::string> arg_texts;
  if (auto call = as_call(text)) {
    fn_text = call->first;
    arg_texts = split_top_level(call->second, [](char c) { return c == ','; });
  } else {
    auto words = split_top_level(text, is_space);
    fn_text = words.empty() ? text : words[0];
    const std::string rest = trim_spaces(text.substr(std::min(text.size(), fn_text.size())));
    const bool has_comma = split_top_level(rest, [](char c) { return c == ','; }).size() > 1;
    arg_texts = has_comma ? split_top_level(rest, [](char c) { return c == ','; }) : split_top_level(rest, is_space);
  }
  interp::CallArgs call;
  Value fn = eval(fn_text);
  for (const auto& a : arg_texts) {
    if (auto kw = as_keyword(a)) call.kwargs.emplace_back(kw->first, eval(kw->second));
    else call.args.push_back(eval(a));
  }
  return {fn, std::move(call)};
}

bool ReplSession::run_command(const std::string& line) {
  auto [name, arg] = split_first_word(line.substr(1));
  if (name == "quit" || name == "q" || name == "exit") return false;
  if (name == "help" || name == "h" || name == "?") {
    std::cout << kHelp;
  } else if (name == "reset") {
    reset_interpreter();
  } else if (name == "devices") {
    return guarded([&] { cmd_devices(); });
  } else if (name == "type" || name == "ir" || name == "ledger" || name == "time" || name == "load") {
    if (arg.empty()) {
      const char* operands = name == "ir" || name == "ledger" ? "FN ARGS" : name == "load" ? "FILE" : "EXPR";
      std::cerr << "usage: :" << name << " " << operands << "\n";
      return true;
    }
    return guarded([&] {
      if (name == "type") cmd_type(arg);
      else if (name == "ir") cmd_ir(arg);
      else if (name == "ledger") cmd_ledger(arg);
      else if (name == "time") cmd_time(arg);
      else cmd_load(arg);
    });
  } else {
    std::cerr << "unknown command ':" << name << "' (:help lists the commands)\n";
  }
  std::cout.flush();
  return true;
}

void ReplSession::cmd_type(const std::string& arg) {
  Value v = eval(arg);
  if (!api::is_array_like(v)) {
    // Not an array: its Python type, as type(v) shows.
    std::cout << interp_->repr(v->cls) << "\n";
    return;
  }
  std::cout << interp_->str(interp_->call(jax_attr("typeof"), std::vector<Value>{v})) << "\n";
  // A concrete array also has a concrete sharding (on an Auto mesh it is not in the type).
  if (api::as_array(v))
    if (auto sharding = interp_->try_getattr(v, "sharding"))
      std::cout << "sharding: " << interp_->repr(*sharding) << "\n";
}

void ReplSession::cmd_ir(const std::string& arg) {
  auto [fn, args] = eval_fn_args(arg);
  Value traced = interp_->call(jax_attr("make_jaxpr"), std::vector<Value>{fn});
  std::cout << interp_->str(interp_->call(traced, args)) << "\n";
}

void ReplSession::cmd_ledger(const std::string& arg) {
  auto [fn, args] = eval_fn_args(arg);
  Value jitted = interp_->call(jax_attr("jit"), std::vector<Value>{fn});
  Value lowered = interp_->call(interp_->getattr(jitted, "lower"), args);
  Value compiled = interp_->call(interp_->getattr(lowered, "compile"), std::vector<Value>{});
  std::string text = interp_->str(interp_->call(interp_->getattr(compiled, "as_text"), std::vector<Value>{}));
  // as_text() is the per-device program, then the ledger as '#' lines: keep the ledger.
  size_t pos = 0;
  while (pos < text.size()) {
    size_t eol = text.find('\n', pos);
    if (eol == std::string::npos) eol = text.size();
    if (text[pos] == '#') std::cout << text.substr(pos, eol - pos) << "\n";
    pos = eol + 1;
  }
}

void ReplSession::cmd_devices() {
  Value devices = interp_->call(jax_attr("devices"), std::vector<Value>{});
  std::cout << interp_->len(devices) << " devices: " << interp_->repr(devices) << "\n";
}

void ReplSession::cmd_time(const std::string& arg) {
  // Compiling is what the process's compile counters gained meanwhile: jit's tracing, and the
  // compile pipeline's stages (jitted and eager programs alike).
  auto compiled_ns = [] {
    int64_t ns = api::jit_time_totals().trace_ns;
    for (const auto& row : exec::stage_timings()) ns += row.wall.count();
    return ns;
  };
  const int64_t traced0 = api::jit_time_totals().trace_ns, compiled0 = compiled_ns();
  auto start = std::chrono::steady_clock::now();
  Value v = eval(arg);
  // Wait for the arrays the expression produced, as jax.block_until_ready does.
  if (v && !interp::is(v, interp::ObjKind::None))
    v = interp_->call(jax_attr("block_until_ready"), std::vector<Value>{v});
  const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  const double trace_ms = static_cast<double>(api::jit_time_totals().trace_ns - traced0) / 1e6;
  const double compile_ms = static_cast<double>(compiled_ns() - compiled0) / 1e6;
  if (v && !interp::is(v, interp::ObjKind::None)) std::cout << interp_->repr(v) << "\n";
  std::cout << fmt::format("wall time: {:.3f} ms\n", ms);
  std::cout << fmt::format("  compile: {:.3f} ms (tracing {:.3f} ms, compiling {:.3f} ms){}\n", compile_ms, trace_ms,
                           compile_ms - trace_ms, compile_ms > 0 ? ": a call with cached types skips it" : ": nothing compiled");
  std::cout << fmt::format("  run:     {:.3f} ms\n", std::max(0.0, ms - compile_ms));
}

void ReplSession::cmd_load(const std::string& arg) {
  interp_->run_file(arg);
}

}  // namespace shard::cli
