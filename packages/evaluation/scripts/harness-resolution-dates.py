#!/usr/bin/env python3
"""Writes src/harness-resolution-dates.generated.json: per repository, the day after the newest
upload among the package versions pinned in the SWE-bench harness's cached environments (the
`conda env export` of each validated image, `swebench/resources/swebench-og/<repo>/<number>/
environment.yml` in a checkout of the SWE-bench repository). The harness built those images
after every pin it exports had been uploaded, so that day is the earliest it can have built them;
loclab resolves a spec's unpinned requirements as of it (pip's --uploaded-prior-to), so that a
requirement like sphinx 3.x's `docutils>=0.12` gets the docutils of the harness's images, not
today's (docutils 0.22 removed `docutils.utils.roman`, which sphinx 3 imports).

Upload times come from the Python package index's simple API (PEP 691 JSON, PEP 700
`upload-time`). Run it when the harness's environments change:

    python3 packages/evaluation/scripts/harness-resolution-dates.py SWE-BENCH-CHECKOUT/swebench/resources/swebench-og
"""
import concurrent.futures
import datetime
import json
import os
import re
import sys
import threading
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "..", "src", "harness-resolution-dates.generated.json")
PIP_PIN = re.compile(r"^\s+- ([A-Za-z0-9_.\-]+)==([^\s;]+)\s*$", re.M)
# Conda entries that are Python packages (a build with a Python tag), name=version=build.
CONDA_PIN = re.compile(r"^  - ([A-Za-z0-9_.\-]+)=([^=\s]+)=(py[^\s]*)$", re.M)

_cache = {}
_lock = threading.Lock()


def simple(name):
    key = re.sub(r"[-_.]+", "-", name).lower()
    with _lock:
        if key in _cache:
            return _cache[key]
    request = urllib.request.Request(
        f"https://pypi.org/simple/{key}/", headers={"Accept": "application/vnd.pypi.simple.v1+json"}
    )
    try:
        files = json.load(urllib.request.urlopen(request, timeout=60))["files"]
    except Exception:
        files = []
    with _lock:
        _cache[key] = files
    return files


def uploaded(pin):
    name, version = pin
    pattern = re.compile(r"[-_]" + re.escape(version) + r"(-|\.tar|\.zip)")
    times = [f["upload-time"] for f in simple(name) if f.get("upload-time") and pattern.search(f["filename"])]
    return pin, min(times) if times else None


def main(folder):
    pins_by_repo = {}
    for directory in sorted(os.listdir(folder)):
        repo = directory.replace("__", "/", 1)
        for number in os.listdir(os.path.join(folder, directory)):
            text = open(os.path.join(folder, directory, number, "environment.yml"), encoding="utf8").read()
            pins = pins_by_repo.setdefault(repo, set())
            pins.update((m.group(1), m.group(2)) for m in PIP_PIN.finditer(text))
            pins.update((m.group(1), m.group(2)) for m in CONDA_PIN.finditer(text))
    every = sorted(set().union(*pins_by_repo.values()))
    with concurrent.futures.ThreadPoolExecutor(16) as pool:
        times = dict(pool.map(uploaded, every))
    dates = {}
    for repo, pins in sorted(pins_by_repo.items()):
        known = sorted((times[pin], pin) for pin in pins if times.get(pin))
        if not known:
            continue
        newest, (name, version) = known[-1]
        day = datetime.datetime.fromisoformat(newest.replace("Z", "+00:00")).date() + datetime.timedelta(days=1)
        dates[repo] = {
            "resolvedAsOf": f"{day.isoformat()}T00:00:00Z",
            "newestPin": f"{name}=={version}",
            "newestPinUploaded": newest,
            "pinsWithUploadTime": len(known),
            "pins": len(pins),
        }
    data = {
        "source": "SWE-bench swebench/resources/swebench-og (the harness's cached environments); upload times from pypi.org/simple",
        "repositories": dates,
    }
    with open(OUT, "w", encoding="utf8") as out:
        out.write(json.dumps(data, indent=2) + "\n")
    for repo, entry in dates.items():
        print(f"{repo}: {entry['resolvedAsOf']} ({entry['newestPin']}, {entry['pinsWithUploadTime']}/{entry['pins']} pins dated)")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    main(sys.argv[1])
