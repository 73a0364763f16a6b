"""Contrastive estimators: contrastive divergence (:mod:`.cd`), maximum composite
likelihood (:mod:`.mcle`), block contrastive divergence (:mod:`.bcd`) and the blocks
they share (:mod:`.blocks`)."""
