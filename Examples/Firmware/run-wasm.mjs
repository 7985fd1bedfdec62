// Runs the wasm build of the firmware under Node's WASI (preview 1): node run-wasm.mjs
// firmware.wasm IN.jpg [scale] [ledger limit]. The input's directory is the only one the
// program may open; its exit status becomes Node's.
import { readFile } from 'node:fs/promises';
import { dirname, basename, resolve } from 'node:path';
import { WASI } from 'node:wasi';

const [wasmPath, input, ...rest] = process.argv.slice(2);
const wasi = new WASI({
    version: 'preview1',
    args: ['firmware', '/input/' + basename(input), ...rest],
    preopens: { '/input': dirname(resolve(input)) },
    returnOnExit: true,
});
const module = await WebAssembly.compile(await readFile(wasmPath));
const instance = await WebAssembly.instantiate(module, wasi.getImportObject());
process.exitCode = wasi.start(instance);
