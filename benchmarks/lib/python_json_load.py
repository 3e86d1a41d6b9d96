"""The alternative to loclab's trajectory reading: Python's json.load of each file whole
(JSONL files line by line with json.loads), every file of the folders given, nothing else
done with the documents. Prints one JSON line: {"bytes", "files", "seconds", "mbPerSecond",
"peakRssMiB"}.

    python3 benchmarks/lib/python_json_load.py DIR [DIR ...]
"""
import json
import os
import resource
import sys
import time


def main(folders):
    started = time.perf_counter()
    total = 0
    files = 0
    for root in folders:
        for folder, _, names in os.walk(root):
            for name in sorted(names):
                path = os.path.join(folder, name)
                if name.endswith(".jsonl"):
                    with open(path, "rb") as handle:
                        for line in handle:
                            if line.strip():
                                json.loads(line)
                elif name.endswith(".json") or name.endswith(".traj"):
                    with open(path, "rb") as handle:
                        json.load(handle)
                else:
                    continue
                total += os.path.getsize(path)
                files += 1
    seconds = time.perf_counter() - started
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(json.dumps({"bytes": total, "files": files, "seconds": round(seconds, 5), "mbPerSecond": round(total / 1e6 / seconds, 1), "peakRssMiB": round(peak, 1)}))


if __name__ == "__main__":
    main(sys.argv[1:])
