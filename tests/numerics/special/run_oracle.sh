#!/usr/bin/env bash
# The gamma family and the normal distribution (jax.lax.lgamma / digamma / polygamma,
# jax.scipy.special) against 40-digit decimal references, then the special functions of
# codegen/special_functions.cpp (igamma, betainc, zeta, Bessel, erfcx, exponential integrals)
# and their compositions and JVPs against 80-digit ones (scripts/test.sh runs every
# tests/numerics/*/run_oracle.sh with the shard binary).
dir="$(dirname "$0")"
/usr/bin/python3 "$dir/special_oracle.py" "$1" || status=1
/usr/bin/python3 "$dir/special_functions_oracle.py" "$1" || status=1
exit ${status:-0}
