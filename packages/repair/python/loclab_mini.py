"""Drives mini-swe-agent on one task for loclab (docs/definitions.md §9, "mini-swe-agent").

loclab starts the sandbox container from the instance image, passes its id here, and removes it
afterwards; mini-swe-agent runs its own agent loop, model class and templates (its SWE-bench
config with actions in markdown code blocks), executing each action with `docker exec` in that
container. The hand-off reaches the model through the instance template (`{{handoff}}`, right
after the issue). The job is a JSON file (argv[1]); the API key, if any, comes from the
environment (OPENAI_API_KEY), never from the job, so it never reaches the trajectory. The last
line on stdout is the result as JSON.
"""

import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

os.environ.setdefault("MSWEA_SILENT_STARTUP", "1")
# litellm's price table from the package itself, not fetched over the network.
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

from minisweagent import __version__  # noqa: E402
from minisweagent.agents.default import DefaultAgent  # noqa: E402
from minisweagent.config import builtin_config_dir, get_config_from_spec  # noqa: E402
from minisweagent.environments.docker import DockerEnvironment  # noqa: E402
from minisweagent.models.litellm_textbased_model import LitellmTextbasedModel  # noqa: E402

HAND_OFF_BLOCK = "</pr_description>\n{% if handoff %}\n{{handoff}}\n{% endif %}"


def _plural(count: int, one: str, many: str) -> str:
    return one if count == 1 else many


class LoclabContainer(DockerEnvironment):
    """mini-swe-agent's docker environment on a container loclab started (and removes).

    With `sandbox` (loclab's limits, docs/definitions.md §9 "sandbox limits"), each action runs
    as loclab's fixer runs a command: under GNU `timeout` inside the container (so the limit
    ends the command there, not only the `docker exec` client), its output read as a stream of
    which the first and last `keepBytes` are kept (mini-swe-agent's template shows a head and a
    tail) and the rest counted, then swept: loclab's sweep script ends what it left running and
    reads the cgroup's counters, and the limits it met are named at the end of the output, in
    the words loclab's fixer uses.
    """

    def __init__(self, *, container_id: str, sandbox: dict | None = None, **kwargs):
        self._given = container_id
        self._sandbox = sandbox
        self._counters = {"memory": 0, "processes": 0}
        super().__init__(**kwargs)
        if sandbox:
            self._counters = self._sweep()["counters"]

    def _start_container(self):
        self.container_id = self._given

    def cleanup(self):
        pass

    def _sweep(self) -> dict:
        result = subprocess.run(
            [
                self.config.executable,
                "exec",
                self.container_id,
                "bash",
                "-c",
                self._sandbox["sweepScript"],
                "loclab-sweep",
                self._sandbox["keeper"],
            ],
            capture_output=True,
            timeout=120,
        )
        reading = {"counters": {"memory": 0, "processes": 0}, "left": 0, "commands": []}
        for line in result.stdout.decode("utf-8", "replace").splitlines():
            key, _, value = line.partition(" ")
            if key == "command":
                reading["commands"].append(value)
            elif key in ("memory", "processes") and value.isdigit():
                reading["counters"][key] = int(value)
            elif key == "left" and value.isdigit():
                reading["left"] = int(value)
        return reading

    def execute(self, action: dict, cwd: str = "", *, timeout: int | None = None) -> dict:
        if not self._sandbox:
            return super().execute(action, cwd, timeout=timeout)
        command = action.get("command", "")
        cwd = cwd or self.config.cwd
        limit = timeout or self.config.timeout
        cmd = [self.config.executable, "exec", "-w", cwd]
        for key in self.config.forward_env:
            if (value := os.getenv(key)) is not None:
                cmd.extend(["-e", f"{key}={value}"])
        for key, value in self.config.env.items():
            cmd.extend(["-e", f"{key}={value}"])
        cmd.extend([self.container_id, "timeout", "-k", "5", str(limit), *self.config.interpreter, command])
        keep = int(self._sandbox["keepBytes"])
        started = time.monotonic()
        process = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        # A backstop for a `docker exec` client that hangs: the limit itself is timeout's, inside.
        backstop = threading.Timer(limit + 15, process.kill)
        backstop.start()
        head, tail, total = bytearray(), bytearray(), 0
        while chunk := process.stdout.read1(1 << 16):
            total += len(chunk)
            if len(head) < keep:
                taken = chunk[: keep - len(head)]
                head += taken
                chunk = chunk[len(taken) :]
            if chunk:
                tail += chunk
                if len(tail) > keep:
                    del tail[: len(tail) - keep]
        returncode = process.wait()
        backstop.cancel()
        elapsed = time.monotonic() - started
        dropped = total - len(head) - len(tail)
        text = head.decode("utf-8", "replace")
        if dropped > 0:
            text += f"\n[… {dropped:,} more bytes not kept]\n"
        text += tail.decode("utf-8", "replace")
        swept = self._sweep()
        hit = {key: max(0, swept["counters"][key] - self._counters[key]) for key in self._counters}
        self._counters = swept["counters"]
        notes = []
        if hit["memory"] > 0:
            notes.append(
                f"killed: memory limit {self._sandbox['memoryMiB']:,} MiB (the kernel ended {hit['memory']} "
                f"{_plural(hit['memory'], 'process', 'processes')} of this command)"
            )
        if hit["processes"] > 0:
            notes.append(
                f"fork failed: process limit {self._sandbox['processes']:,} ({hit['processes']:,} "
                f"{_plural(hit['processes'], 'fork', 'forks')} refused)"
            )
        if swept["left"] > 0:
            shown = ", ".join(f"`{line}`" for line in swept["commands"])
            more = f" and {swept['left'] - len(swept['commands']):,} more" if swept["left"] > len(swept["commands"]) else ""
            notes.append(
                f"ended after the command: {swept['left']:,} {_plural(swept['left'], 'process', 'processes')} "
                f"it left running ({shown}{more}); every command starts with none"
            )
        if notes:
            text += "\n" + "\n".join(notes)
        extra = {
            "loclab": {
                "outputBytes": total,
                "droppedBytes": dropped,
                "memoryKills": hit["memory"],
                "forksRefused": hit["processes"],
                "leftoverProcesses": swept["left"],
            }
        }
        timed_out = returncode in (124, 137) and elapsed >= limit
        if self._sandbox.get("limitsLog"):
            # The ledger's count of the limits met (one line per action; read by fix-with-mini.ts).
            with open(self._sandbox["limitsLog"], "a", encoding="utf-8") as log:
                log.write(json.dumps({**extra["loclab"], "timedOut": timed_out}) + "\n")
        if timed_out:
            output = {
                "output": text,
                "returncode": -1,
                "exception_info": f"An error occurred while executing the command: timed out after {limit} seconds (the command and its children were killed)",
                "extra": {"exception_type": "TimeoutExpired", **extra},
            }
        else:
            output = {"output": text, "returncode": returncode, "exception_info": "", "extra": extra}
        self._check_finished(output)
        return output


def main() -> None:
    job = json.loads(Path(sys.argv[1]).read_text())
    config = get_config_from_spec(str(builtin_config_dir / "benchmarks" / "swebench_backticks.yaml"))
    agent_config = dict(config["agent"])
    template = agent_config["instance_template"]
    if "</pr_description>" not in template:
        raise SystemExit("mini-swe-agent's instance template has no </pr_description>: the hand-off has no place")
    agent_config["instance_template"] = template.replace("</pr_description>", HAND_OFF_BLOCK, 1)
    agent_config.update(
        step_limit=job["stepLimit"],
        cost_limit=job["costLimit"],
        wall_time_limit_seconds=job["wallSeconds"],
        output_path=Path(job["trajectory"]),
    )
    environment = dict(config["environment"])
    environment.pop("environment_class", None)
    env = LoclabContainer(
        container_id=job["container"],
        image=job["image"],
        cwd=job["cwd"],
        timeout=job["commandTimeoutSeconds"],
        env=environment.get("env", {}),
        interpreter=environment.get("interpreter", ["bash", "-c"]),
        sandbox=job.get("sandbox"),
    )
    model_config = dict(config["model"])
    kwargs = {"api_base": job["baseURL"], "drop_params": True}
    for key in ("temperature", "top_p", "seed", "max_tokens"):
        if job.get(key) is not None:
            kwargs[key] = job[key]
    model_config.update(
        model_name=f"openai/{job['model']}",
        model_kwargs=kwargs,
        cost_tracking="ignore_errors",
    )
    if not os.environ.get("OPENAI_API_KEY"):
        # litellm's OpenAI client wants some key; a local server ignores it.
        os.environ["OPENAI_API_KEY"] = "none"
    model = LitellmTextbasedModel(**model_config)
    agent = DefaultAgent(model, env, **agent_config)
    try:
        result = agent.run(job["task"], handoff=job.get("handOff") or "")
    except Exception as error:  # the agent recorded it in the trajectory (exit message) before raising
        result = {"exit_status": type(error).__name__, "submission": "", "error": str(error)}
    print(
        json.dumps(
            {
                "version": __version__,
                "exitStatus": result.get("exit_status", ""),
                "submission": result.get("submission", ""),
                "apiCalls": agent.n_calls,
                "cost": agent.cost,
                **({"error": result["error"]} if "error" in result else {}),
            }
        )
    )


if __name__ == "__main__":
    main()
