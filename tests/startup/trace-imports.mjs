// Preloaded with `node --import`: records every module URL the program resolves, one per line,
// in the file LOCLAB_TRACE_IMPORTS names. Used to check what a command's start-up loads.
import { appendFileSync } from "node:fs";
import { register } from "node:module";

const file = process.env.LOCLAB_TRACE_IMPORTS;
if (!file) throw new Error("LOCLAB_TRACE_IMPORTS is not set");
const { port1, port2 } = new MessageChannel();
port1.on("message", (url) => appendFileSync(file, `${url}\n`));
port1.unref();
register("./trace-imports-hooks.mjs", { parentURL: import.meta.url, data: { port: port2 }, transferList: [port2] });
