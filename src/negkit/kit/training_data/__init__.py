"""What a benchmark declares for fine-tuning: training examples (:mod:`.examples`), a training set built from a
task's own items (:mod:`.task_source`) and the public training corpora's data declarations (:mod:`.data_sources`).
The training itself (``negkit finetune``) is :mod:`negkit.training`, above the commands."""
