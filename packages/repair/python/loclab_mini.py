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
import sys
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


class LoclabContainer(DockerEnvironment):
    """mini-swe-agent's docker environment on a container loclab started (and removes)."""

    def __init__(self, *, container_id: str, **kwargs):
        self._given = container_id
        super().__init__(**kwargs)

    def _start_container(self):
        self.container_id = self._given

    def cleanup(self):
        pass


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
