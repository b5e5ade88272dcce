"""Copied into the root of the unpacked sense-memory 0.3.1 sdist by scripts/python/test.sh:
its own tests, unchanged, then import memstr.compat wherever they import sense_memory."""

import sys

import memstr.compat
import memstr.compat.store
import memstr.compat.types

sys.modules["sense_memory"] = memstr.compat
sys.modules["sense_memory.store"] = memstr.compat.store
sys.modules["sense_memory.types"] = memstr.compat.types
