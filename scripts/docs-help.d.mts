// Types of docs-help.mjs, for the docs test.
export const ROOT: string;
export const DOCS_DIR: string;
export function docPages(): string[];
export function helpBlocks(text: string): { command: string; body: string }[];
export function helpOf(command: string): string;
export function blockBody(help: string): string;
export function renderPage(text: string, helps?: Map<string, string>): string;
export function expectedPages(): { page: string; command: string }[];
