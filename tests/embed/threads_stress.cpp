// Two Interpreters on two threads at once (issue 19, item 10): each sets its own mesh and runs
// jitted shard_map collectives and eager ops in a loop; every result is checked, and neither
// sees the other's mesh. libshard serializes calls behind one process-wide lock and swaps each
// Interpreter's mesh context in (include/shard/shard.hpp). Prints "N passed, N failed" last.
#include <shard/shard.hpp>

#include <atomic>
#include <cstdio>
#include <string>
#include <thread>
#include <vector>

namespace {

std::atomic<int> g_passed{0}, g_failed{0};

void check(bool ok, const std::string& what) {
  if (ok) {
    ++g_passed;
  } else {
    ++g_failed;
    std::printf("FAIL %s\n", what.c_str());
  }
}

// Interpreter `id` uses a mesh of `n` devices named `axis`; psum over it of ones is n.
void worker(int id, int n, const char* axis, int rounds) {
  try {
    shard::Interpreter py(8);
    py.run(std::string("import jax\nimport jax.numpy as jnp\nfrom jax.sharding import PartitionSpec as P\n") +
           "mesh = jax.make_mesh((" + std::to_string(n) + ",), ('" + axis + "',))\n" +
           "jax.sharding.set_mesh(mesh)\n"
           "f = jax.jit(jax.shard_map(lambda b: jax.lax.psum(b, '" + axis + "'), in_specs=P('" + axis + "'), out_specs=P()))\n");
    for (int r = 0; r < rounds; ++r) {
      auto names = py.eval("jax.sharding.get_abstract_mesh().axis_names").repr();
      check(names == std::string("('") + axis + "',)", "interpreter " + std::to_string(id) + " sees its own mesh, got " + names);
      auto out = py.eval("f(jnp.ones(" + std::to_string(2 * n) + "))").to_host().values<float>();
      check(out.size() == 2 && out[0] == static_cast<float>(n) && out[1] == static_cast<float>(n),
            "interpreter " + std::to_string(id) + " psum round " + std::to_string(r));
      auto sum = py.eval("float(jnp.sum(jnp.arange(" + std::to_string(r) + ".0) + 1))").repr();
      check(sum == std::to_string(r * (r + 1) / 2) + ".0", "interpreter " + std::to_string(id) + " eager sum " + sum);
    }
  } catch (const shard::Error& e) {
    check(false, std::string("interpreter ") + std::to_string(id) + " raised: " + e.what());
  }
}

}  // namespace

int main() {
  const int rounds = 40;
  std::thread a(worker, 0, 4, "x", rounds), b(worker, 1, 8, "y", rounds), c(worker, 2, 2, "z", rounds);
  a.join();
  b.join();
  c.join();
  std::printf("%d passed, %d failed\n", g_passed.load(), g_failed.load());
  return g_failed == 0 ? 0 : 1;
}
