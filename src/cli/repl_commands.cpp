// The REPL's `:` commands. Each evaluates its operands in __main__ and reports errors in the
// script format, like any chunk.
#include <chrono>
#include <iostream>

#include <fmt/format.h>

#include "api/objects/array_value.hpp"
#include "cli/repl_session.hpp"

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
    "  :ir FN ARGS      the traced IR of FN applied to ARGS (jax.make_jaxpr(FN)(ARGS))\n"
    "  :ledger FN ARGS  the collectives of jax.jit(FN) compiled for ARGS, per device\n"
    "  :devices         the simulated devices\n"
    "  :time EXPR       evaluate EXPR (waiting for its arrays) and print the wall time\n"
    "  :load FILE       run FILE in this session's namespace\n"
    "  :reset           forget every name (a fresh interpreter)\n"
    "  :quit            leave (as Ctrl-D)\n";

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

std::pair<Value, std::vector<Value>> ReplSession::eval_fn_args(const std::string& arg) {
  auto [fn_text, args_text] = split_first_word(arg);
  Value fn = eval(fn_text);
  std::vector<Value> args;
  if (!args_text.empty()) {
    Value tuple = eval("(" + args_text + ",)");
    args = interp_->to_vector(tuple);
  }
  return {fn, args};
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
  auto start = std::chrono::steady_clock::now();
  Value v = eval(arg);
  // Wait for the arrays the expression produced, as jax.block_until_ready does.
  if (v && !interp::is(v, interp::ObjKind::None))
    v = interp_->call(jax_attr("block_until_ready"), std::vector<Value>{v});
  double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  if (v && !interp::is(v, interp::ObjKind::None)) std::cout << interp_->repr(v) << "\n";
  std::cout << fmt::format("wall time: {:.3f} ms\n", ms);
}

void ReplSession::cmd_load(const std::string& arg) {
  interp_->run_file(arg);
}

}  // namespace shard::cli
