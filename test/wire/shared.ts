/** Loads the golden vectors from ../shared (cloned beside the repo); fails loudly when missing. */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { fromHex } from '../../src/wire/bytes.js';

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const sharedDir = path.resolve(repoRoot, '../shared');

export function sharedFile(rel: string): string {
  const p = path.join(sharedDir, rel);
  if (!existsSync(p)) {
    throw new Error(
      `golden vector file ${p} is missing: the shared/ folder must be cloned beside the repo (${sharedDir})`,
    );
  }
  return p;
}

// biome-ignore lint/suspicious/noExplicitAny: the vector JSON is free-form and checked field by field
export type Json = any;

export function loadVectors(name: 'roce.json' | 'overlay.json' | 'int_hpcc.json'): Json {
  return JSON.parse(readFileSync(sharedFile(`vectors/${name}`), 'utf8'));
}

export function hex(s: string): Buffer {
  const b = fromHex(s);
  if (b === null) throw new Error(`bad hex in vector: ${s.slice(0, 40)}...`);
  return b;
}

/** "0x00a0b1" or 41137 → number. */
export function num(v: string | number): number {
  return typeof v === 'number' ? v : Number.parseInt(v, v.startsWith('0x') ? 16 : 10);
}
