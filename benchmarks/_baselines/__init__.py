"""Adapters and subprocess runners for the benchmark baselines (pyraptor, networkx).

The runner modules are executed as scripts by *other* interpreters (the separate
venvs under ``benchmarks/results/``), so they import only the standard library at
module level and their baseline package inside ``main``.
"""
