#!/usr/bin/env bash
# jax.vmap against numpy stacking f over the examples (the gradient oracle's functions).
exec /usr/bin/python3 "$(dirname "$0")/vmap_oracle.py" "$1"
