#!/usr/bin/env bash
# stdlib/scalax's sharding rules against a Python re-statement of the documented rules.
exec /usr/bin/python3 "$(dirname "$0")/scalax_rules_oracle.py" "$1"
