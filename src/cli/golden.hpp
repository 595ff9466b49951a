// `shard test`: the golden test runner. Each X.shard under the given directories is run as
// a child `shard X.shard` in its own directory; its stdout+stderr must equal X.out byte for
// byte. Leading comment directives of a test:
//   # shard-args: --devices 4         options put before the file name (after `--`: script args)
//   # shard-env: SHARD_DEVICES=4       extra environment variables
//   # golden: KIND ...                 the first line: where X.out comes from (cpython, jax-seed,
//                                      numpy, or shard for a snapshot); a test without it fails
//                                      (scripts/regen_host_goldens.sh regenerates the cpython ones)
// Files and directories whose name starts with '_' are not tests (helper modules).
#pragma once
#include <string>
#include <vector>

namespace shard::cli {

// args: [--update] [-j N] [--timeout SECONDS] DIR|FILE...; returns the exit status
// (0 all passed, 1 some failed, 2 usage error).
int run_golden_tests(const std::vector<std::string>& args);

}  // namespace shard::cli
