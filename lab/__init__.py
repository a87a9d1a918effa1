"""Research kept out of the package: experiments on the computer players that no level the
bot or ``python -m engine.ai.tournament`` offers uses (``docs/design.md`` §10). The wheel does
not install this folder (``pyproject.toml`` lists the packages it ships); the benches in
``bench/`` and the tests in ``tests/lab/`` import it from a checkout.

- :mod:`lab.strong`: the ``strong`` player with the options that measured no gain (the play
  and signal likelihoods, the signals given);
- :mod:`lab.likelihoods`: those likelihoods;
- :mod:`lab.fusion`: ``solve_next``, strategy fusion at the root (``bench/bench_fusion.py``);
- :mod:`lab.reveal`: knowledge with hidden hands shown (``bench/bench_oracle.py``,
  ``bench/bench_regret.py``).
"""
