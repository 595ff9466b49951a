#!/usr/bin/python3
"""numpy oracle for jax.random in shard.

Generates one .shard program per placement (eager; eager with out_sharding= on a 4x2 mesh;
inside jax.jit with out_sharding=) that draws every case and np.save()s it, runs `shard`,
and compares each result with threefry_ref.py, an independent numpy model of JAX's
partitionable threefry2x32: bit-exact for key data and bits (which must be uint32), uniform,
randint, bernoulli and permutations; normal within 2 ulp-ish (rtol 1e-6: erf_inv goes
through libm's log1pf).
Values must not depend on the placement.

usage: random_oracle.py SHARD_EXE [-v] [--keep DIR]
Prints `N passed, N failed` last; exit status 1 when anything failed.
"""
import math
import os
import subprocess
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import threefry_ref as ref  # noqa: E402

SEEDS = [0, 1, 42, 1701, -1, 2**31 + 3]
SHAPES = [(), (1,), (7,), (8, 4), (2, 3, 4), (1000,)]


def cases():
    """(name, shard expression over `key`/`raw`, reference thunk, kind, shape)."""
    out = []
    for s in SEEDS:
        k = ref.seed(s)
        key = f"jax.random.key({s})"
        raw = f"jax.random.PRNGKey({s})"
        out.append((f"seed{s}", f"jax.random.key_data({key})", lambda k=k: k, "bits", None))
        out.append((f"split{s}", f"jax.random.key_data(jax.random.split({key}, 5))", lambda k=k: ref.split(k, 5), "bits", None))
        out.append((f"split2d{s}", f"jax.random.split({raw}, (2, 3))", lambda k=k: ref.split(k, (2, 3)), "bits", None))
        for d in [0, 1, 7, 2**31 + 5]:
            out.append((f"fold{s}_{d}", f"jax.random.key_data(jax.random.fold_in({key}, {d}))", lambda k=k, d=d: ref.fold_in(k, d), "bits", None))
        for shape in SHAPES:
            tag = f"{s}_{'x'.join(map(str, shape)) or 'scalar'}"
            out.append((f"bits{tag}", f"jax.random.bits({key}, {shape}{{OS}})", lambda k=k, sh=shape: ref.bits(k, sh), "bits", shape))
            out.append((f"uniform{tag}", f"jax.random.uniform({key}, {shape}{{OS}})", lambda k=k, sh=shape: ref.uniform(k, sh), "exact", shape))
            out.append((f"uniformab{tag}", f"jax.random.uniform({raw}, {shape}, minval=-3.0, maxval=0.5{{OS}})",
                        lambda k=k, sh=shape: ref.uniform(k, sh, -3.0, 0.5), "exact", shape))
            out.append((f"normal{tag}", f"jax.random.normal({key}, {shape}{{OS}})", lambda k=k, sh=shape: ref.normal(k, sh), "normal", shape))
            out.append((f"truncnormal{tag}", f"jax.random.truncated_normal({key}, -2.0, 1.5, {shape}{{OS}})",
                        lambda k=k, sh=shape: ref.truncated_normal(k, -2.0, 1.5, sh), "normal", shape))
            out.append((f"randint{tag}", f"jax.random.randint({key}, {shape}, -7, 1000{{OS}})",
                        lambda k=k, sh=shape: ref.randint(k, sh, -7, 1000), "exact", shape))
            out.append((f"randintbig{tag}", f"jax.random.randint({key}, {shape}, -2**31, 2**31 - 1{{OS}})",
                        lambda k=k, sh=shape: ref.randint(k, sh, -2**31, 2**31 - 1), "exact", shape))
            out.append((f"bernoulli{tag}", f"jax.random.bernoulli({key}, 0.25, {shape}{{OS}})",
                        lambda k=k, sh=shape: ref.uniform(k, sh) < np.float32(0.25), "exact", shape))
            # Transforms of the draws above: float math (log, tan, pow) as XLA's, so within
            # a few float32 ulps of numpy's.
            for name, fn in [("exponential", ref.exponential), ("laplace", ref.laplace), ("logistic", ref.logistic),
                             ("cauchy", ref.cauchy), ("maxwell", ref.maxwell)]:
                out.append((f"{name}{tag}", f"jax.random.{name}({key}, {shape}{{OS}})", lambda k=k, sh=shape, fn=fn: fn(k, sh), "float", shape))
            out.append((f"gumbel{tag}", f"jax.random.gumbel({key}, {shape}{{OS}})", lambda k=k, sh=shape: ref.gumbel(k, sh), "float", shape))
            out.append((f"gumbelhigh{tag}", f"jax.random.gumbel({key}, {shape}, mode='high'{{OS}})",
                        lambda k=k, sh=shape: ref.gumbel(k, sh, "high"), "float", shape))
            out.append((f"rademacher{tag}", f"jax.random.rademacher({key}, {shape}{{OS}})", lambda k=k, sh=shape: ref.rademacher(k, sh), "exact", shape))
            out.append((f"lognormal{tag}", f"jax.random.lognormal({key}, 0.5, {shape}{{OS}})",
                        lambda k=k, sh=shape: ref.lognormal(k, 0.5, sh), "float", shape))
            out.append((f"pareto{tag}", f"jax.random.pareto({key}, 3.0, {shape}{{OS}})", lambda k=k, sh=shape: ref.pareto(k, 3.0, sh), "float", shape))
            out.append((f"rayleigh{tag}", f"jax.random.rayleigh({key}, 2.0, {shape}{{OS}})",
                        lambda k=k, sh=shape: ref.rayleigh(k, 2.0, sh), "float", shape))
            out.append((f"weibull{tag}", f"jax.random.weibull_min({key}, 2.0, 1.5, {shape})",
                        lambda k=k, sh=shape: ref.weibull_min(k, 2.0, 1.5, sh), "float", shape))
            logits = "[[0.1, 2.0, -1.0, 0.5], [3.0, 0.0, 0.0, -2.0]]"
            cshape = tuple(shape) + (2,)
            out.append((f"categorical{tag}", f"jax.random.categorical({key}, jnp.array({logits}), shape={cshape})",
                        lambda k=k, sh=cshape, lg=logits: ref.categorical(k, np.array(eval(lg)), sh), "exact", cshape))
        # Without replacement: k = 3 draws of 2 x 4 logits, and all 4 of one row of 4.
        out.append((f"categorical_noreplace{s}", f"jax.random.categorical({key}, jnp.array({logits}), shape=(3, 2), replace=False)",
                    lambda k=k, lg=logits: ref.categorical_without_replacement(k, np.array(eval(lg)), (3, 2)), "exact", None))
        out.append((f"categorical_all{s}", f"jax.random.categorical({key}, jnp.array([0.5, 0.5, 0.5, 2.0]), shape=(4,), replace=False)",
                    lambda k=k: ref.categorical_without_replacement(k, np.array([0.5, 0.5, 0.5, 2.0]), (4,)), "exact", None))
        for n in [1, 2, 10, 100, 2000]:
            out.append((f"perm{s}_{n}", f"jax.random.permutation(jax.random.key({s}), {n})", lambda k=k, n=n: ref.permutation(k, n), "exact", None))
        out.append((f"choice{s}", f"jax.random.choice(jax.random.key({s}), 50, (4, 5), replace=False)",
                    lambda k=k: ref.permutation(k, 50)[:20].reshape(4, 5), "exact", None))
    out.extend(sampler_cases())
    return out


# ---- the gamma family, counting samplers and other transforms ------------------------------
# Values against threefry_ref's step-by-step models of JAX's algorithms (rejection loops with
# their key splits), and, independently, the moments of 20000 draws against the analytic ones.
N_MOMENTS = 20000


def sampler_cases():
    out = []
    v = "float"
    for s in [0, 1, 42, 1701]:
        k = ref.seed(s)
        key = f"jax.random.key({s})"
        for a in [0.3, 1.0, 2.5, 7.0]:
            for shape in [(), (7,), (2, 3, 4)]:
                tag = f"{s}_{a}_{'x'.join(map(str, shape)) or 'scalar'}"
                out.append((f"gamma{tag}", f"jax.random.gamma({key}, {a}, {shape}{{OS}})",
                            lambda k=k, a=a, sh=shape: ref.gamma(k, a, sh), v, shape))
        arr = [0.1, 0.5, 1.0, 3.0, 50.0, 0.02, 1.7, 9.0]
        out.append((f"gamma_arr{s}", f"jax.random.gamma({key}, jnp.array({arr}){{OS}})", lambda k=k, arr=arr: ref.gamma(k, np.array(arr), (8,)), v, (8,)))
        # Parameters sharded over the mesh's x axis (gathered, the result sharded alike).
        sh = "jax.device_put(jnp.array({}), NamedSharding(mesh, P('x')))"
        out.append((f"gamma_sharded{s}", f"jax.random.gamma({key}, {sh.format(arr)})", lambda k=k, arr=arr: ref.gamma(k, np.array(arr), (8,)), v, None))
        lam8 = [0.5, 3.0, 9.0, 11.0, 40.0, 0.0, 2.0, 100.0]
        out.append((f"poisson_sharded{s}", f"jax.random.poisson({key}, {sh.format(lam8)})", lambda k=k, l=lam8: ref.poisson(k, np.array(l), (8,)), "exact", None))
        out.append((f"beta_sharded{s}", f"jax.random.beta({key}, {sh.format(arr)}, 2.0)", lambda k=k, arr=arr: ref.beta(k, np.array(arr), 2.0, (8,)), v, None))
        out.append((f"gamma_bcast{s}", f"jax.random.gamma({key}, jnp.array({arr}), (3, 8))", lambda k=k, arr=arr: ref.gamma(k, np.array(arr), (3, 8)), v, None))
        for a in [0.01, 0.5, 3.0]:
            out.append((f"loggamma{s}_{a}", f"jax.random.loggamma({key}, {a}, (8, 4){{OS}})", lambda k=k, a=a: ref.loggamma(k, a, (8, 4)), v, (8, 4)))
        lams = [0.0, 1.5, 9.9, 10.0, 250.0, 3.0, 12.5, 0.1]
        for a in [0.05, 1.0, 6.0]:
            out.append((f"gammaapprox{s}_{a}", f"jax.random.gamma({key}, {a}, (8, 4), method='approximate'{{OS}})",
                        lambda k=k, a=a: ref.gamma_approx(k, a, (8, 4)), v, (8, 4)))
            out.append((f"loggammaapprox{s}_{a}", f"jax.random.loggamma({key}, {a}, (7,), method='approximate')",
                        lambda k=k, a=a: ref.gamma_approx(k, a, (7,), True), v, None))
        for lam in [0.7, 6.5, 7.0, 40.0]:
            out.append((f"poissonapprox{s}_{lam}", f"jax.random.poisson({key}, {lam}, (8, 4), method='approximate'{{OS}})",
                        lambda k=k, lam=lam: ref.poisson_approx(k, lam, (8, 4)), "exact", (8, 4)))
        out.append((f"poissonapprox_arr{s}", f"jax.random.poisson({key}, jnp.array({lams}), (3, 8), method='approximate')",
                    lambda k=k, l=lams: ref.poisson_approx(k, np.array(l), (3, 8)), "exact", None))
        out.append((f"beta{s}", f"jax.random.beta({key}, 1.5, 0.7, (8, 4){{OS}})", lambda k=k: ref.beta(k, 1.5, 0.7, (8, 4)), v, (8, 4)))
        out.append((f"dirichlet{s}", f"jax.random.dirichlet({key}, jnp.array([0.5, 1.0, 2.0]), (4,))",
                    lambda k=k: ref.dirichlet(k, np.array([0.5, 1.0, 2.0]), (4,)), v, None))
        out.append((f"chisquare{s}", f"jax.random.chisquare({key}, 3.0, (7,))", lambda k=k: ref.chisquare(k, 3.0, (7,)), v, None))
        out.append((f"f{s}", f"jax.random.f({key}, 2.0, 5.0, (8,){{OS}})", lambda k=k: ref.f_dist(k, 2.0, 5.0, (8,)), v, (8,)))
        out.append((f"t{s}", f"jax.random.t({key}, 4.0, (8, 4){{OS}})", lambda k=k: ref.student_t(k, 4.0, (8, 4)), v, (8, 4)))
        out.append((f"gennormal{s}", f"jax.random.generalized_normal({key}, 1.5, (8,){{OS}})",
                    lambda k=k: ref.generalized_normal(k, 1.5, (8,)), v, (8,)))
        out.append((f"ball{s}", f"jax.random.ball({key}, 3, shape=(5,))", lambda k=k: ref.ball(k, 3, 2, (5,)), v, None))
        out.append((f"ball_p{s}", f"jax.random.ball({key}, 2, 1.5, (4,))", lambda k=k: ref.ball(k, 2, 1.5, (4,)), v, None))
        for lam in [0.5, 4.0, 30.0]:
            out.append((f"poisson{s}_{lam}", f"jax.random.poisson({key}, {lam}, (8, 4){{OS}})", lambda k=k, lam=lam: ref.poisson(k, lam, (8, 4)), "exact", (8, 4)))
        out.append((f"poisson_arr{s}", f"jax.random.poisson({key}, jnp.array({lams}))", lambda k=k, l=lams: ref.poisson(k, np.array(l), (8,)), "exact", None))
        for n, pr in [(20, 0.3), (100, 0.4), (50, 0.8), (7, 0.95)]:
            out.append((f"binomial{s}_{n}_{pr}", f"jax.random.binomial({key}, {n}, {pr}, (8, 4))",
                        lambda k=k, n=n, pr=pr: ref.binomial(k, n, pr, (8, 4)), "exact", None))
        bn, bp = [10.0, 1000.0, -1.0, float("inf"), float("nan"), 20.0, 20.0, 30.0], [0.3, 0.7, 0.5, 0.5, 0.2, -0.1, 1.5, float("nan")]
        out.append((f"binomial_edge{s}", f"jax.random.binomial({key}, jnp.array({bn}), jnp.array({bp}))".replace("inf", "jnp.inf").replace("nan", "jnp.nan"),
                    lambda k=k, bn=bn, bp=bp: ref.binomial(k, np.array(bn), np.array(bp), (8,)), "exact_nan", None))
        out.append((f"multinomial{s}", f"jax.random.multinomial({key}, 10, jnp.array([0.2, 0.3, 0.5]), shape=(4, 3))",
                    lambda k=k: ref.multinomial(k, 10, np.array([0.2, 0.3, 0.5]), (4, 3)), "exact", None))
        out.append((f"geometric{s}", f"jax.random.geometric({key}, 0.3, (8, 4){{OS}})", lambda k=k: ref.geometric(k, 0.3, (8, 4)), "exact", (8, 4)))
        out.append((f"triangular{s}", f"jax.random.triangular({key}, 0.0, 0.3, 1.0, (8, 4){{OS}})",
                    lambda k=k: ref.triangular(k, 0.0, 0.3, 1.0, (8, 4)), v, (8, 4)))
        out.append((f"wald{s}", f"jax.random.wald({key}, 1.5, (8, 4){{OS}})", lambda k=k: ref.wald(k, 1.5, (8, 4)), v, (8, 4)))
        out.append((f"dsmaxwell{s}", f"jax.random.double_sided_maxwell({key}, 1.0, 2.0, (7,))",
                    lambda k=k: ref.double_sided_maxwell(k, 1.0, 2.0, (7,)), v, None))
        out.append((f"orthogonal{s}", f"jax.random.orthogonal({key}, 4)", lambda k=k: ref.orthogonal(k, 4, ()), "loose", None))
        out.append((f"orthogonal_nm{s}", f"jax.random.orthogonal({key}, 3, (2,), m=5)", lambda k=k: ref.orthogonal(k, 3, (2,), 5), "loose", None))
        cov = [[2.0, 0.3, 0.1], [0.3, 1.0, -0.2], [0.1, -0.2, 0.5]]
        out.append((f"mvn{s}", f"jax.random.multivariate_normal({key}, jnp.array([1.0, -1.0, 0.5]), jnp.array({cov}), (4,))",
                    lambda k=k, cov=cov: ref.multivariate_normal_cholesky(k, [1.0, -1.0, 0.5], cov, (4,)), "loose", None))
        # d sample / d alpha (random_gamma_grad), reverse and forward mode, against the implicit
        # derivative -dP(a, x)/da / dP(a, x)/dx of an independent float64 incomplete gamma.
        for a in [0.4, 2.5]:
            out.append((f"gammagrad{s}_{a}", f"jax.grad(lambda a: jax.random.gamma({key}, a).sum())(jnp.full((12,), {a}))",
                        lambda k=k, a=a: ref.gamma_sample_grad(a, ref.gamma(k, a, (12,))), "grad", None))
        out.append((f"gammajvp{s}", f"jax.jvp(lambda a: jax.random.gamma({key}, a), (jnp.full((6,), 1.3),), (jnp.ones(6),))[1]",
                    lambda k=k: ref.gamma_sample_grad(1.3, ref.gamma(k, 1.3, (6,))), "grad", None))
        out.append((f"betagrad{s}", f"jax.grad(lambda a: jax.random.beta({key}, a, 2.0).sum())(jnp.full((6,), 1.5))",
                    lambda k=k: ref.beta_grad_a(k, 1.5, 2.0, (6,)), "grad", None))
        out.append((f"shardmapgamma{s}", f"jax.shard_map(lambda kk, a: jax.random.gamma(kk[0], a), mesh=mesh, in_specs=(P('x'), P('x')), "
                    f"out_specs=P('x'))(jax.random.split({key}, 4), jnp.array({arr}))",
                    lambda k=k, arr=arr: np.concatenate([ref.gamma(kk, np.array(arr[2 * i:2 * i + 2]), (2,)) for i, kk in enumerate(ref.split(k, 4))]),
                    v, None))
        va = [0.3, 1.0, 2.5, 8.0]
        out.append((f"vmapgammagrad{s}", f"jax.vmap(jax.grad(lambda a: jax.random.gamma({key}, a)))(jnp.array({va}))",
                    lambda k=k, va=va: np.concatenate([ref.gamma_sample_grad(a, ref.gamma(k, a, (1,))) for a in va]), "grad", None))
        out.append((f"vmappoisson{s}", f"jax.vmap(lambda lam: jax.random.poisson({key}, lam, (2,)))(jnp.array([1.0, 9.0, 12.0, 300.0]))",
                    lambda k=k: np.stack([ref.poisson(k, lam, (2,)) for lam in [1.0, 9.0, 12.0, 300.0]]), "exact", None))
        out.append((f"vmapgamma{s}", f"jax.vmap(lambda k: jax.random.gamma(k, 2.0, (3,)))(jax.random.split({key}, 4))",
                    lambda k=k: np.stack([ref.gamma(kk, 2.0, (3,)) for kk in ref.split(k, 4)]), v, None))
    # lax.random_gamma_grad on a grid that takes both its series and its continued fraction
    # (where Gamma(a) has its mass: JAX's algorithm gives up where x**a e**-x / Gamma(a) underflows).
    pairs = [(a, a * f) for a in [0.1, 0.5, 1.0, 2.5, 10.0, 50.0] for f in [0.05, 0.3, 0.8, 1.0, 1.5, 3.0]]
    pairs += [(a, x) for a in [0.1, 0.5, 1.0] for x in [5.0, 20.0]]
    pairs = [(a, x) for a, x in pairs if a * np.log(x) - x - math.lgamma(a) > -80]
    A, X = np.array([p[0] for p in pairs]), np.array([p[1] for p in pairs])
    out.append(("random_gamma_grad_grid", f"jax.lax.random_gamma_grad(jnp.array({A.ravel().tolist()}), jnp.array({X.ravel().tolist()}))",
                lambda A=A, X=X: np.array([ref.gamma_sample_grad(a, [x])[0] for a, x in zip(A.ravel(), X.ravel())], np.float32), "grad", None))
    # Moments of many draws (seed 7): mean and variance against the analytic ones.
    m = []
    key = "jax.random.key(7)"
    n = N_MOMENTS
    tri = (0.0, 0.3, 1.0)
    m += [("gamma_0.5", f"jax.random.gamma({key}, 0.5, ({n},))", (0.5, 0.5)),
          ("gamma_3", f"jax.random.gamma({key}, 3.0, ({n},))", (3.0, 3.0)),
          ("loggamma_exp", f"jnp.exp(jax.random.loggamma({key}, 0.6, ({n},)))", (0.6, 0.6)),
          ("beta", f"jax.random.beta({key}, 2.0, 3.0, ({n},))", (0.4, 0.04)),
          ("dirichlet0", f"jax.random.dirichlet({key}, jnp.array([1.0, 2.0, 3.0]), ({n},))[:, 0]", (1 / 6, (1 / 6) * (5 / 6) / 7)),
          ("chisquare", f"jax.random.chisquare({key}, 4.0, ({n},))", (4.0, 8.0)),
          ("t", f"jax.random.t({key}, 6.0, ({n},))", (0.0, 1.5)),
          ("f", f"jax.random.f({key}, 5.0, 20.0, ({n},))", (20 / 18, 2 * 400 * 23 / (5 * 324 * 16))),
          ("gamma_approx_0.3", f"jax.random.gamma({key}, 0.3, ({n},), method='approximate')", (0.3, 0.3)),
          ("poisson_approx", f"jax.random.poisson({key}, 6.5, ({n},), method='approximate')", (6.5, 6.5)),
          ("poisson_approx_large", f"jax.random.poisson({key}, 80.0, ({n},), method='approximate')", (80.0, 80.0)),
          ("poisson_small", f"jax.random.poisson({key}, 3.5, ({n},))", (3.5, 3.5)),
          ("poisson_large", f"jax.random.poisson({key}, 50.0, ({n},))", (50.0, 50.0)),
          ("binomial_inv", f"jax.random.binomial({key}, 30, 0.2, ({n},))", (6.0, 4.8)),
          ("binomial_btrs", f"jax.random.binomial({key}, 200, 0.6, ({n},))", (120.0, 48.0)),
          ("multinomial1", f"jax.random.multinomial({key}, 20, jnp.array([0.1, 0.6, 0.3]), shape=({n}, 3))[:, 1]", (12.0, 4.8)),
          ("geometric", f"jax.random.geometric({key}, 0.25, ({n},))", (4.0, 12.0)),
          ("wald", f"jax.random.wald({key}, 0.5, ({n},))", (0.5, 0.125)),
          ("triangular", f"jax.random.triangular({key}, {tri[0]}, {tri[1]}, {tri[2]}, ({n},))", (1.3 / 3, 0.79 / 18)),
          ("gennormal_laplace", f"jax.random.generalized_normal({key}, 1.0, ({n},))", (0.0, 2.0)),
          ("gennormal_normal", f"jax.random.generalized_normal({key}, 2.0, ({n},))", (0.0, 0.5)),
          ("dsmaxwell", f"jax.random.double_sided_maxwell({key}, 0.5, 1.0, ({n},))", (0.5, 3.0)),
          ("ball_radius2", f"(lambda x: (x * x).sum(-1))(jax.random.ball({key}, 3, shape=({n},)))", (0.6, 3 / 7 - 0.36)),
          ("mvn_svd", f"(lambda x: x[:, 0] + x[:, 1])(jax.random.multivariate_normal({key}, jnp.zeros(2), jnp.array([[2.0, 0.5], [0.5, 1.0]]), ({n},), method='svd'))", (0.0, 4.0)),
          ("mvn_eigh", f"(lambda x: x[:, 0] - x[:, 1])(jax.random.multivariate_normal({key}, jnp.ones(2), jnp.array([[2.0, 0.5], [0.5, 1.0]]), ({n},), method='eigh'))", (0.0, 2.0)),
          ("orthogonal_entry", f"jax.random.orthogonal({key}, 5, ({n // 25},)).reshape(-1)", (0.0, 0.2))]
    for name, expr, mv in m:
        out.append((f"moments_{name}", expr, lambda mv=mv: np.array(mv), "moments", None))
    return out


PLACEMENTS = {
    "eager": ("", lambda shape: ""),
    "mesh": ("mesh", lambda shape: ", out_sharding=P('x', 'y')" if len(shape) == 2
             else ", out_sharding=P('x')" if len(shape) == 1 and shape[0] % 4 == 0 else ""),
    "jit": ("jit", lambda shape: ", out_sharding=P(None, 'y')" if len(shape) == 2 else ""),
}


def program(placement, cs, outdir):
    mode, os_for = PLACEMENTS[placement]
    lines = ["import jax", "import jax.numpy as jnp", "import numpy as np",
             "from jax.sharding import PartitionSpec as P, AxisType, NamedSharding",
             "mesh = jax.make_mesh((4, 2), ('x', 'y'), axis_types=(AxisType.Explicit, AxisType.Explicit))",
             "jax.sharding.set_mesh(mesh)" if mode else ""]
    for name, expr, _, _, shape in cs:
        e = expr.replace("{OS}", os_for(shape) if shape is not None else "")
        if mode == "jit":
            e = f"jax.jit(lambda: {e})()"
        lines.append(f"np.save({os.path.join(outdir, name + '.npy')!r}, np.asarray({e}))")
    lines.append("print('done')")
    return "\n".join(lines) + "\n"


def compare(kind, got, want):
    if kind == "bits":  # key data and random bits are uint32 arrays, as in JAX
        return got.shape == want.shape and got.dtype == np.uint32 and np.array_equal(got, want.astype(np.uint32))
    if kind == "normal":
        return got.shape == want.shape and got.dtype == np.float32 and np.allclose(got, want, rtol=1e-6, atol=1e-7)
    if kind == "float":  # libm-level math (log, log1p, tan, pow) in float32: a few ulps apart
        return got.shape == want.shape and got.dtype == np.float32 and np.allclose(got, want, rtol=4e-6, atol=1e-6)
    if kind == "exact_nan":  # exact, NaN where NaN
        return got.shape == want.shape and got.dtype == np.asarray(want).dtype and np.array_equal(got, want, equal_nan=True)
    if kind == "loose":  # LAPACK-level math (QR, Cholesky) in float32
        return got.shape == want.shape and got.dtype == np.float32 and np.allclose(got, want, rtol=1e-4, atol=1e-5)
    if kind == "grad":  # an implicit derivative against finite differences of float64 math
        return got.shape == want.shape and got.dtype == np.float32 and np.allclose(got, want, rtol=2e-3, atol=1e-4)
    if kind == "moments":  # mean within 5 standard errors, variance within 8%
        x = got.astype(np.float64).ravel()
        mean, var = float(want[0]), float(want[1])
        return abs(x.mean() - mean) <= 5 * np.sqrt(var / x.size) + 1e-9 and abs(x.var() - var) <= 0.08 * var
    return got.shape == want.shape and got.dtype == np.asarray(want).dtype and np.array_equal(got, want)


def main():
    args = sys.argv[1:]
    if not args:
        print(__doc__)
        return 2
    shard, verbose = args[0], "-v" in args
    keep = args[args.index("--keep") + 1] if "--keep" in args else None
    cs = cases()
    passed = failed = 0
    wants = {}
    with tempfile.TemporaryDirectory() as tmp:
        work = keep or tmp
        for placement in PLACEMENTS:
            outdir = os.path.join(work, placement)
            os.makedirs(outdir, exist_ok=True)
            src = os.path.join(work, f"random_{placement}.shard")
            with open(src, "w") as f:
                f.write(program(placement, cs, outdir))
            r = subprocess.run([shard, "--devices", "8", src], capture_output=True, text=True, timeout=1200)
            if r.returncode != 0:
                print(f"FAIL {placement}: shard exited {r.returncode}\n{r.stdout}{r.stderr}")
                failed += len(cs)
                continue
            for name, expr, want_fn, kind, _ in cs:
                if name not in wants:
                    wants[name] = np.asarray(want_fn())
                want = wants[name]
                try:
                    got = np.load(os.path.join(outdir, name + ".npy"))
                except OSError as e:
                    print(f"FAIL {placement} {name}: {e}")
                    failed += 1
                    continue
                if compare(kind, got, want):
                    passed += 1
                    if verbose:
                        print(f"ok   {placement} {name}")
                else:
                    failed += 1
                    if kind == "moments":
                        x = got.astype(np.float64).ravel()
                        print(f"FAIL {placement} {name}: {expr}\n  mean {x.mean()} var {x.var()}, want {want}")
                    else:
                        print(f"FAIL {placement} {name}: {expr}\n  got  {got.dtype}{got.shape} {got.ravel()[:8]}\n"
                              f"  want {want.dtype}{want.shape} {want.ravel()[:8]}")
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
