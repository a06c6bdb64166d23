"""Reference evaluators of the ``objpert.*`` statements: seed 003 (Redberg's thesis), chapter 2 + appendix A
(ex-post per-instance DP of objective perturbation and its private privacy reports; notes shared/notes/objpert-pdp.md)
and chapter 4 + appendix C (objective perturbation's (ε, δ) profile, RDP, dominating pair, approximate minima
perturbation; notes shared/notes/objpert-rdp.md).

Shape (as reference/gptr/): the dependency-free :mod:`.spec` (seed, domains, ``Param``s, conditions by name and text,
in one section per part), then

- chapter 2: :mod:`.losses` (GLM losses), :mod:`.solver` (the exact perturbed minimiser), :mod:`.expost` (Thm 2.3.1,
  Cor 2.3.2, Thms 2.3.3, 2.3.4), :mod:`.kifer` (Thm 2.2.5 = Thm 4.2.8), :mod:`.gaussian_pdp` (Thm A.6.1, Cor A.6.2,
  Ex 2.2.4, Lemma A.7.3), :mod:`.report` / :mod:`.report_accuracy` (Algorithms 2, 8–11: privacy and accuracy),
  :mod:`.releases` (the algorithms as code), :mod:`.goe` (the exact law of the GOE's largest eigenvalue, Lemmas
  A.4.2–A.4.4), :mod:`.witnesses_ch2`;
- chapter 4: :mod:`.glm_bounds` (Thms 4.3.1, 4.3.2, Lemmas 4.3.4, C.4.3, C.4.6), :mod:`.composition` (Lemma C.4.7),
  :mod:`.nonglm` (Thm C.5.1, Lemma C.10.15, the C.3.1 heuristic), :mod:`.amp` (Thm 4.4.1, Thm C.6.1, the
  calibration), :mod:`.clipping` (Thms C.6.2/C.6.3), :mod:`.optimisation` (C.7, Thm C.8.1), :mod:`.amp_algorithms`,
  :mod:`.witnesses_ch4` (the dominating pair and its products), :mod:`.witnesses_exact` (exact 1-D pairs, the
  non-GLM control)."""
