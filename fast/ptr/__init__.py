"""Fast paths of the PTR paper (``ptr.*``, seeds 000/001): the RDP bounds (:mod:`.bounds`), the R_q moments
(:mod:`.rq`), the utility bound (:mod:`.utility`), the robust-aggregation operators (:mod:`.operators`) and the
training-time algorithms (:mod:`.training`). Mirrors ``reference/ptr/``."""
