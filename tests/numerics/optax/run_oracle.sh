#!/usr/bin/env bash
# stdlib/optax against numpy implementations of optax's update rules.
exec /usr/bin/python3 "$(dirname "$0")/optax_oracle.py" "$1"
