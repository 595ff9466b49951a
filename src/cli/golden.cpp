#include "cli/golden.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <string_view>

#include <fmt/format.h>

#include "cli/diff.hpp"
#include "cli/subprocess.hpp"

extern char** environ;

namespace shard::cli {
namespace fs = std::filesystem;

namespace {

struct TestOptions {
  bool update = false;
  int jobs = 2;
  double timeout = 60;
  std::vector<std::string> paths;
};

struct GoldenTest {
  fs::path file;     // as found (relative to the runner's cwd if given so)
  fs::path expected; // X.out beside it
  std::vector<std::string> args_before, args_after, env;
  std::string first_line;
};

struct UsageProblem {
  std::string message;
};

int parse_positive(const std::string& s, const std::string& what) {
  char* end = nullptr;
  long v = std::strtol(s.c_str(), &end, 10);
  if (s.empty() || *end != '\0' || v < 1 || v > 1000) throw UsageProblem{what + " expects a positive number, got '" + s + "'"};
  return static_cast<int>(v);
}

TestOptions parse_test_args(const std::vector<std::string>& args) {
  TestOptions o;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    auto value = [&](const std::string& name) -> std::string {
      if (i + 1 >= args.size()) throw UsageProblem{"option " + name + " needs a value"};
      return args[++i];
    };
    if (a == "--update" || a == "-u") o.update = true;
    else if (a == "-j" || a == "--jobs") o.jobs = parse_positive(value(a), a);
    else if (a.rfind("-j", 0) == 0 && a.size() > 2 && a[2] != '-') o.jobs = parse_positive(a.substr(2), "-j");
    else if (a.rfind("--jobs=", 0) == 0) o.jobs = parse_positive(a.substr(7), "--jobs");
    else if (a == "--timeout") o.timeout = parse_positive(value(a), a);
    else if (a.rfind("--timeout=", 0) == 0) o.timeout = parse_positive(a.substr(10), "--timeout");
    else if (a == "--") { o.paths.insert(o.paths.end(), args.begin() + static_cast<std::ptrdiff_t>(i) + 1, args.end()); break; }
    else if (!a.empty() && a[0] == '-') throw UsageProblem{"unknown option '" + a + "' for 'shard test'"};
    else o.paths.push_back(a);
  }
  if (o.paths.empty()) throw UsageProblem{"'shard test' needs at least one directory or file"};
  return o;
}

bool is_helper_name(const fs::path& p) { return p.filename().string().rfind('_', 0) == 0; }

std::vector<fs::path> discover(const std::vector<std::string>& paths) {
  std::vector<fs::path> found;
  std::set<std::string> seen;
  for (const auto& arg : paths) {
    std::error_code ec;
    fs::path root(arg);
    std::vector<fs::path> here;
    if (fs::is_directory(root, ec)) {
      fs::recursive_directory_iterator it(root, fs::directory_options::skip_permission_denied, ec), end;
      for (; !ec && it != end; it.increment(ec)) {
        if (is_helper_name(it->path())) {
          if (it->is_directory(ec)) it.disable_recursion_pending();
          continue;
        }
        if (it->path().extension() == ".shard" && it->is_regular_file(ec)) here.push_back(it->path());
      }
      std::sort(here.begin(), here.end());
    } else if (fs::is_regular_file(root, ec)) {
      here.push_back(root);
    } else {
      throw UsageProblem{"no such test file or directory: " + arg};
    }
    for (auto& p : here)
      if (seen.insert(p.lexically_normal().string()).second) found.push_back(p);
  }
  return found;
}

std::vector<std::string> split_words(const std::string& s) {
  std::vector<std::string> words;
  std::istringstream in(s);
  for (std::string w; in >> w;) words.push_back(w);
  return words;
}

// Reads the first line and the directives in the leading comment block of a test.
void read_directives(GoldenTest& t) {
  std::ifstream in(t.file);
  bool first = true;
  for (std::string line; std::getline(in, line);) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (first) t.first_line = line;
    first = false;
    if (line.empty() || line[0] != '#') break;
    auto directive = [&](const char* key, std::string& rest) {
      std::string prefix = std::string("# ") + key + ":";
      if (line.rfind(prefix, 0) != 0) return false;
      rest = line.substr(prefix.size());
      return true;
    };
    std::string rest;
    if (directive("shard-args", rest)) {
      bool after = false;
      for (auto& w : split_words(rest)) {
        if (w == "--") after = true;
        else (after ? t.args_after : t.args_before).push_back(w);
      }
    } else if (directive("shard-env", rest)) {
      for (auto& w : split_words(rest))
        if (w.find('=') != std::string::npos) t.env.push_back(w);
    }
  }
}

// A golden test's expected output has to come from an independent source, or say that it does
// not: its first line names the source, so a snapshot of shard's own output cannot pass for a
// reference (README, "Golden tests"). scripts/regen_host_goldens.sh regenerates the cpython ones.
struct ProvenanceKind {
  std::string_view name;
  bool needs_detail;       // jax-seed and numpy must say which section / how the values were checked
  std::string_view usage;  // the rest of the line, as the failure message shows it
};
constexpr ProvenanceKind kProvenanceKinds[] = {
    {"cpython", false, ""},
    {"jax-seed", true, " <seed document and section>"},
    {"numpy", true, " <how the values were checked>"},
    {"shard", false, " (snapshot of shard's own output)"},
};

// Why `line` is not a provenance line, or "" if it is one.
std::string provenance_problem(const std::string& line) {
  const std::string prefix = "# golden: ";
  if (line.rfind(prefix, 0) == 0) {
    std::string rest = line.substr(prefix.size());
    size_t space = rest.find(' ');
    std::string kind = rest.substr(0, space);
    bool has_detail = space != std::string::npos && rest.find_first_not_of(' ', space) != std::string::npos;
    for (const auto& k : kProvenanceKinds) {
      if (kind != k.name) continue;
      if (k.needs_detail && !has_detail)
        return fmt::format("`# golden: {}` must be followed by{}", k.name, k.usage);
      return "";
    }
  }
  std::string accepted;
  for (const auto& k : kProvenanceKinds) accepted += fmt::format("\n    # golden: {}{}", k.name, k.usage);
  return fmt::format("the first line must say where the expected output comes from, one of:{}\n  found: {}",
                     accepted, line.empty() ? "(an empty line)" : line);
}

std::string self_exe() {
  std::error_code ec;
  fs::path p = fs::read_symlink("/proc/self/exe", ec);
  return ec ? std::string("/proc/self/exe") : p.string();
}

// The runner's environment minus SHARD_DEVICES, plus NO_COLOR=1 and the test's own vars.
std::vector<std::string> child_env(const GoldenTest& t) {
  std::map<std::string, std::string> vars;
  for (char** e = environ; e && *e; ++e) {
    std::string kv = *e;
    auto eq = kv.find('=');
    if (eq == std::string::npos) continue;
    vars[kv.substr(0, eq)] = kv.substr(eq + 1);
  }
  vars.erase("SHARD_DEVICES");
  vars["NO_COLOR"] = "1";
  for (const auto& kv : t.env) {
    auto eq = kv.find('=');
    vars[kv.substr(0, eq)] = kv.substr(eq + 1);
  }
  std::vector<std::string> env;
  for (auto& [k, v] : vars) env.push_back(k + "=" + v);
  return env;
}

bool read_whole(const fs::path& p, std::string& out) {
  std::ifstream in(p, std::ios::binary);
  if (!in) return false;
  std::ostringstream ss;
  ss << in.rdbuf();
  out = ss.str();
  return true;
}

const char* describe_signal(int sig) {
  const char* s = strsignal(sig);
  return s ? s : "unknown signal";
}

// Judges one finished test; returns true if it passed. Writes its report into `report`.
bool judge(const GoldenTest& t, ChildResult& r, const TestOptions& o, double timeout,
           std::string& report) {
  std::string name = t.file.string();
  if (!r.spawn_error.empty()) {
    report = fmt::format("FAIL {}: could not start: {}\n", name, r.spawn_error);
    return false;
  }
  std::string problem;
  if (r.timed_out) problem = fmt::format("timed out after {} s", timeout);
  else if (r.output_capped) problem = "output exceeded the cap; killed";
  else if (r.term_signal) problem = fmt::format("killed by signal {} ({})", r.term_signal, describe_signal(r.term_signal));

  std::string expected;
  bool have_expected = read_whole(t.expected, expected);
  bool same = have_expected && expected == r.output;
  if (problem.empty() && same) return true;

  if (o.update && problem.empty()) {
    std::ofstream out(t.expected, std::ios::binary | std::ios::trunc);
    out << r.output;
    if (!out) {
      report = fmt::format("FAIL {}: cannot write {}\n", name, t.expected.string());
      return false;
    }
    report = fmt::format("updated {}\n", t.expected.string());
    return true;
  }

  report = "FAIL " + name;
  if (!problem.empty()) report += ": " + problem;
  else if (!have_expected) report += ": missing " + t.expected.filename().string() + " (run with --update to create it)";
  report += "\n";
  if (!same)
    report += unified_diff(expected, r.output, t.expected.filename().string(), "actual");
  return false;
}

}  // namespace

int run_golden_tests(const std::vector<std::string>& args) {
  TestOptions o;
  std::vector<GoldenTest> tests;
  try {
    o = parse_test_args(args);
    for (auto& file : discover(o.paths)) {
      GoldenTest t;
      t.file = file;
      t.expected = fs::path(file).replace_extension(".out");
      read_directives(t);
      tests.push_back(std::move(t));
    }
  } catch (const UsageProblem& p) {
    std::cerr << "shard test: " << p.message << "\n";
    return 2;
  }

  // A test without a provenance line fails without running (and --update writes nothing for it).
  std::vector<std::optional<std::string>> reports(tests.size());
  size_t printed = 0, passed = 0, failed = 0;
  std::vector<size_t> test_of_spec;
  std::string exe = self_exe();
  std::vector<ChildSpec> specs;
  for (size_t i = 0; i < tests.size(); ++i) {
    const GoldenTest& t = tests[i];
    if (std::string problem = provenance_problem(t.first_line); !problem.empty()) {
      reports[i] = fmt::format("FAIL {}: {}\n", t.file.string(), problem);
      ++failed;
      continue;
    }
    test_of_spec.push_back(i);
    ChildSpec s;
    s.exe = exe;
    s.argv.push_back(exe);
    s.argv.insert(s.argv.end(), t.args_before.begin(), t.args_before.end());
    if (t.file.filename().string().rfind('-', 0) == 0) s.argv.push_back("--");  // not an option
    s.argv.push_back(t.file.filename().string());
    s.argv.insert(s.argv.end(), t.args_after.begin(), t.args_after.end());
    fs::path dir = t.file.parent_path();
    s.cwd = dir.empty() ? "." : dir.string();
    s.env = child_env(t);
    specs.push_back(std::move(s));
  }

  // Reports are printed in test order as soon as all earlier tests have finished.
  auto print_ready = [&] {
    while (printed < reports.size() && reports[printed]) {
      std::cout << *reports[printed];
      std::cout.flush();
      ++printed;
    }
  };
  RunLimits limits;
  limits.timeout_seconds = o.timeout;
  run_children(specs, o.jobs, limits, [&](size_t spec, ChildResult& r) {
    size_t i = test_of_spec[spec];
    std::string report;
    if (judge(tests[i], r, o, o.timeout, report)) ++passed;
    else ++failed;
    reports[i] = std::move(report);
    print_ready();
  });
  print_ready();
  std::cout << passed << " passed, " << failed << " failed\n";
  std::cout.flush();
  return failed ? 1 : 0;
}

}  // namespace shard::cli
