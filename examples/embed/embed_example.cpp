// Embedding shard in C++: a tensor-parallel layer, jitted and sharded over a 4x2 mesh of
// simulated devices, called with host buffers; the result is checked against a plain C++
// computation. Prints one line per check and "N passed, N failed" last (exit 1 on failure).
#include <shard/shard.hpp>

#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

namespace {

constexpr const char* kModel = R"(
import jax
import jax.numpy as jnp
from jax.sharding import PartitionSpec as P, NamedSharding, AxisType

mesh = jax.make_mesh((4, 2), ("dp", "mp"), axis_types=(AxisType.Explicit, AxisType.Explicit))

@jax.jit
def layer(x, w, b):
    # x rows over dp, the contraction over mp: the matmul needs an all-reduce over mp.
    y = jnp.matmul(x, w, out_sharding=P("dp", None))
    return jnp.tanh(y + b), y.sum()

def forward(x, w, b):
    x = jax.device_put(x, NamedSharding(mesh, P("dp", "mp")))
    w = jax.device_put(w, NamedSharding(mesh, P("mp", None)))
    return layer(x, w, b)
)";

int passed = 0, failed = 0;

void check(bool ok, const std::string& what) {
  std::printf("%s %s\n", ok ? "ok  " : "FAIL", what.c_str());
  (ok ? passed : failed)++;
}

}  // namespace

int main() {
  constexpr int64_t B = 8, K = 4, N = 3;
  std::vector<float> x(B * K), w(K * N), b(N);
  for (int64_t i = 0; i < B * K; ++i) x[i] = static_cast<float>(i) / 16.0f - 1.0f;
  for (int64_t i = 0; i < K * N; ++i) w[i] = std::sin(static_cast<float>(i));
  for (int64_t i = 0; i < N; ++i) b[i] = 0.25f * static_cast<float>(i);

  // The reference, in double precision, without shard.
  std::vector<double> want(B * N);
  double want_sum = 0;
  for (int64_t r = 0; r < B; ++r)
    for (int64_t c = 0; c < N; ++c) {
      double acc = 0;
      for (int64_t k = 0; k < K; ++k) acc += double(x[r * K + k]) * double(w[k * N + c]);
      want_sum += acc;
      want[r * N + c] = std::tanh(acc + b[c]);
    }

  try {
    shard::Interpreter py(8);
    check(py.device_count() == 8, "8 simulated devices");
    py.run(kModel, "model.shard");

    // Host buffers in, host buffers out.
    auto xb = shard::HostBuffer::of<float>({B, K}, x);
    auto wb = shard::HostBuffer::of<float>({K, N}, w);
    auto bb = shard::HostBuffer::of<float>({N}, b);
    std::vector<shard::HostBuffer> out = py.call("forward", {xb, wb, bb});
    check(out.size() == 2, "forward returns two arrays");
    check(out[0].shape == std::vector<int64_t>{B, N} && out[0].dtype == "float32", "output is float32[8,3]");
    double worst = 0;
    std::vector<float> got = out[0].values<float>();
    for (size_t i = 0; i < got.size() && i < want.size(); ++i) worst = std::max(worst, std::fabs(got[i] - want[i]));
    char error_text[32];
    std::snprintf(error_text, sizeof error_text, "%.1e", worst);
    check(got.size() == want.size() && worst < 1e-5,
          std::string("tanh(x @ w + b) matches the C++ reference (max error ") + error_text + ")");
    double got_sum = out[1].values<float>().at(0);
    check(std::fabs(got_sum - want_sum) < 1e-4 * std::max(1.0, std::fabs(want_sum)), "sum(x @ w) matches");

    // The same call through Values: the result's type and sharding.
    shard::Value result = py.function("forward")({py.array(xb), py.array(wb), py.array(bb)});
    shard::Value y = result.attr("__getitem__")({py.eval("0")});
    std::printf("type: %s\nsharding: %s\n", y.type_string().c_str(), y.sharding().c_str());
    check(y.type_string() == "ShapedArray(float32[8@dp,3])", "the output's type carries its dp sharding");
    check(y.sharding().find("spec=PartitionSpec('dp', None)") != std::string::npos, "the output is sharded over dp");
    check(py.eval("layer._cache_size()").str() == "1", "the jitted layer was traced once");

    // Python errors arrive as shard::Error with the script-format message.
    try {
      py.run("scale = 2\nscale / 0\n", "bad.shard");
      check(false, "a ZeroDivisionError is raised");
    } catch (const shard::Error& e) {
      std::printf("%s\n", e.what());
      check(e.type() == "ZeroDivisionError" &&
                std::string(e.what()).rfind("bad.shard:2:1: ZeroDivisionError: division by zero", 0) == 0,
            "errors come back as shard::Error in the script format");
    }
    check(py.get("scale").repr() == "2", "state survives the error");
    try {
      py.call("forward", {shard::HostBuffer::of<float>({3, 5}, std::vector<float>(15)), wb, bb});
      check(false, "a shape error is raised");
    } catch (const shard::Error& e) {
      check(e.type() == "TypeError" || e.type() == "ValueError", "mismatched shapes raise a " + e.type());
    }
  } catch (const shard::Error& e) {
    std::printf("unexpected shard::Error (%s):\n%s\n", e.type().c_str(), e.what());
    ++failed;
  }
  std::printf("%d passed, %d failed\n", passed, failed);
  return failed ? 1 : 0;
}
