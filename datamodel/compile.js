// SPDX-License-Identifier: MIT
// Compiles every .ksy file of datamodel/ (or of KSY_DIR) to Python with the Kaitai Struct
// compiler (the npm package, which has no command of its own) into OUT_DIR.
// Usage: node datamodel/compile.js OUT_DIR [KSY_DIR]
'use strict';
const fs = require('fs');
const path = require('path');
const yaml = require('js-yaml');
const KaitaiStructCompiler = require('kaitai-struct-compiler');

const [outDir, ksyDir = __dirname] = process.argv.slice(2);
const language = 'python';
if (!outDir) {
	console.error('usage: node compile.js OUT_DIR [KSY_DIR]');
	process.exit(2);
}

const load = (name) => yaml.load(fs.readFileSync(path.join(ksyDir, `${name}.ksy`), 'utf8'));
// Imports name sibling files ("bth"), all in this directory.
const importer = { importYaml: (name) => Promise.resolve(load(name)) };

async function main() {
	const compiler = new KaitaiStructCompiler();
	const names = fs.readdirSync(ksyDir).filter((f) => f.endsWith('.ksy')).map((f) => f.slice(0, -4)).sort();
	fs.mkdirSync(outDir, { recursive: true });
	const written = new Set();
	for (const name of names) {
		const files = await compiler.compile(language, load(name), importer, false);
		for (const [file, text] of Object.entries(files)) {
			fs.writeFileSync(path.join(outDir, file), text);
			written.add(file);
		}
	}
	console.log(`kaitai-struct-compiler ${compiler.version}: ${names.length} .ksy files, ` +
		`${written.size} ${language} modules in ${outDir}`);
}

main().catch((e) => {
	console.error(`compile.js: ${e && e.stack ? e.stack : JSON.stringify(e)}`);
	process.exit(1);
});
