#!/usr/bin/env bash
# Compile the bytecode of what negkit uses in .venv (scripts/setup.sh runs it after installing with uv; scripts/test.sh
# runs it beside mypy). pip compiles every installed module's bytecode; uv does not, and with PYTHONDONTWRITEBYTECODE
# set every start would compile torch and transformers from source again (20 s instead of 7). Importing what negkit
# uses, with bytecode allowed, compiles just that (about 15 s; all of site-packages would take twice as long); where
# it is compiled already, this takes the few seconds of the imports.
cd "$(dirname "$0")/.."
env -u PYTHONDONTWRITEBYTECODE .venv/bin/python -c "
import importlib
for name in ('torch', 'transformers', 'peft', 'accelerate', 'gguf', 'matplotlib.pyplot', 'negkit.cli',
             'negkit.commands.eval.evaluate', 'negkit.models.hf_causal', 'negkit.models.gguf', 'negkit.training',
             'transformers.models.llama.modeling_llama', 'transformers.models.gpt2.modeling_gpt2'):
    try:
        importlib.import_module(name)
    except Exception:
        pass  # not installed (a base install): nothing to compile
" || true
