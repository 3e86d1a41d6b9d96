"""Parses `vllm serve` command lines with the pinned vLLM's own argument parser.

Reads a JSON list of argv lists (each starting with the executable, then `serve`) on stdin and
writes a JSON list of results: {"ok": true, "model": …} or {"ok": false, "error": "…"}. The
parser is built as vLLM's CLI builds it (`vllm.entrypoints.cli.main`: a FlexibleArgumentParser
with the serve subcommand's own `subparser_init`), and the subcommand's `validate` runs too
(the tool-call parser's name, LoRA settings, …). Nothing is served; no model is read.
"""

import contextlib
import io
import json
import sys


def main() -> None:
    import vllm.entrypoints.cli.serve as serve
    import vllm.tool_parsers  # noqa: F401 (registers the built-in parsers)
    from vllm.tool_parsers.abstract_tool_parser import ToolParserManager
    from vllm.utils.argparse_utils import FlexibleArgumentParser

    parsers = ToolParserManager.list_registered()

    results = []
    for argv in json.load(sys.stdin):
        parser = FlexibleArgumentParser(prog="vllm")
        subparsers = parser.add_subparsers(required=True, dest="subparser")
        command = serve.cmd_init()[0]
        command.subparser_init(subparsers)
        errors = io.StringIO()
        try:
            with contextlib.redirect_stderr(errors):
                args = parser.parse_args(argv[1:])
                command.validate(args)
            parser_name = getattr(args, "tool_call_parser", None)
            if parser_name is not None and parser_name not in parsers:
                raise ValueError(f"--tool-call-parser {parser_name} is not one of vLLM's ({', '.join(parsers)})")
            results.append({"ok": True, "model": getattr(args, "model_tag", None) or getattr(args, "model", None)})
        except SystemExit:
            results.append({"ok": False, "error": errors.getvalue().strip().splitlines()[-1:] or ["(no message)"]})
        except Exception as error:  # validate raises ValueError and friends
            results.append({"ok": False, "error": [f"{type(error).__name__}: {error}"]})
    json.dump(results, sys.stdout)


if __name__ == "__main__":
    main()
