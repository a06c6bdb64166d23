"""Fast paths (torch, float64) of the ``objpert.*`` statements, seed 003 (Redberg's thesis), chapters 2 and 4
(objective perturbation): the closed forms (:mod:`.glm_bounds`, :mod:`.amp`, :mod:`.kifer`, :mod:`.report`), the
batched exact ex-post per-instance loss (:mod:`.expost`: one Cholesky, many individuals), the GOE law
(:mod:`.goe`), the dominating pairs for the tight accountant (:mod:`.pairs`), Algorithms 1 and 7 as operators
(:mod:`.algorithms`), Algorithm 7's accounting and calibration (:mod:`.calibration`), the reports' accuracy
statements (:mod:`.report_accuracy`), Papernot–Steinke private tuning (:mod:`.tuning`) and the Sec. 4.5 experiment
(:mod:`.experiment`). Domains and condition texts come from ``dpspec.reference.objpert.spec``."""
