#!/usr/bin/env bash
# jax.shard_map against a numpy reference that computes every device's block (shmap_reference.py),
# over meshes (1,) (2,) (4,) (8,) (2,2) (2,4) (4,2), in_specs and bodies with collectives
# (scripts/test.sh runs every tests/numerics/*/run_oracle.sh with the shard binary and adds the
# counts of the last line, `N passed, N failed`). Debian's /usr/bin/python3 has numpy.
#   bash tests/numerics/shard_map/run_oracle.sh build/src/shard [-v] [-k SUBSTRING] [--keep DIR]
exec /usr/bin/python3 "$(dirname "$0")/shmap_oracle.py" "$@"
