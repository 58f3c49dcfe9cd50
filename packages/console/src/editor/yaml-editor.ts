/**
 * The YAML editor: CodeMirror 6 with YAML highlighting, completion of keys and enum values from the
 * API's schema, and diagnostics — YAML syntax and quick schema checks as you type, the control plane's
 * own validation after each Preview. Loaded only by the editor page.
 */
import { autocompletion, type CompletionContext, type CompletionResult, completionKeymap } from "@codemirror/autocomplete";
import { defaultKeymap, history, historyKeymap, indentWithTab } from "@codemirror/commands";
import { yaml } from "@codemirror/lang-yaml";
import { HighlightStyle, bracketMatching, indentOnInput, syntaxHighlighting } from "@codemirror/language";
import { type Diagnostic, forceLinting, lintGutter, linter } from "@codemirror/lint";
import { EditorState } from "@codemirror/state";
import { EditorView, highlightActiveLine, keymap, lineNumbers } from "@codemirror/view";
import { tags } from "@lezer/highlight";
import { isMap, isSeq, LineCounter, parseDocument } from "yaml";
import { type JsonSchema, type Problem, propertiesOf, quickCheck, schemaAt, valuesOf, yamlContext } from "./schema";

// Colours from the page's CSS variables, so light and dark both read well.
const highlight = HighlightStyle.define([
  { tag: tags.propertyName, color: "var(--code-key)" },
  { tag: [tags.string, tags.special(tags.string)], color: "var(--code-string)" },
  { tag: [tags.number, tags.bool, tags.null], color: "var(--code-number)" },
  { tag: tags.comment, color: "var(--muted)", fontStyle: "italic" },
]);

/** The node range of `path` in a parsed YAML document (the key's value, or the nearest ancestor that exists). */
export function rangeOf(text: string, path: readonly (string | number)[]): { from: number; to: number } {
  const doc = parseDocument(text, { keepSourceTokens: false });
  let node: unknown = doc.contents;
  let range: [number, number, number] | undefined = (doc.contents as { range?: [number, number, number] } | null)?.range;
  for (const step of path) {
    if (isMap(node)) {
      const pair = node.items.find((p) => (p.key as { value?: unknown } | null)?.value === step);
      if (!pair) break;
      const key = pair.key as { range?: [number, number, number] };
      node = pair.value;
      range = (node as { range?: [number, number, number] } | null)?.range ?? key.range;
    } else if (isSeq(node) && typeof step === "number") {
      node = node.items[step];
      range = (node as { range?: [number, number, number] } | undefined)?.range ?? range;
    } else break;
  }
  return range ? { from: range[0], to: Math.max(range[0] + 1, range[1]) } : { from: 0, to: Math.min(1, text.length) };
}

/**
 * The editor's look. CodeMirror writes its styles into a stylesheet at run time; the console's
 * Content-Security-Policy allows no inline style, so the editor lives in a shadow root, where its
 * styles go into a constructed (adopted) stylesheet instead of a <style> element. CSS variables
 * inherit into it, so the page's light and dark colours apply.
 */
const theme = EditorView.theme({
  "&": { minHeight: "22rem", maxHeight: "60vh", backgroundColor: "var(--bg)", color: "var(--fg)", fontSize: "14px" },
  ".cm-scroller": { fontFamily: 'ui-monospace, "SFMono-Regular", Menlo, Consolas, monospace', overflow: "auto" },
  ".cm-gutters": { backgroundColor: "var(--panel)", color: "var(--muted)", borderRight: "1px solid var(--line)" },
  ".cm-activeLine": { backgroundColor: "color-mix(in srgb, var(--panel) 60%, transparent)" },
  ".cm-cursor": { borderLeftColor: "var(--fg)" },
  "&.cm-focused": { outline: "3px solid var(--focus)", outlineOffset: "-3px" },
  ".cm-tooltip": { backgroundColor: "var(--panel)", color: "var(--fg)", border: "1px solid var(--line)" },
  ".cm-tooltip-autocomplete ul li[aria-selected]": { backgroundColor: "var(--link)", color: "var(--bg)" },
  ".cm-diagnostic-error": { borderLeftColor: "var(--bad-fg)" },
});

function completeFrom(schema: JsonSchema) {
  return (context: CompletionContext): CompletionResult | null => {
    const word = context.matchBefore(/[A-Za-z0-9_./-]*/);
    if (!word || (word.from === word.to && !context.explicit)) return null;
    const text = context.state.doc.toString();
    const where = yamlContext(text, context.pos);
    const line = context.state.doc.lineAt(context.pos);
    const beforeCursor = text.slice(line.from, context.pos);
    if (where.afterColon && where.key !== undefined && /:\s*\S*$/.test(beforeCursor)) {
      const values = valuesOf(schemaAt(schema, [...where.path, where.key]));
      return values.length === 0 ? null : { from: word.from, options: values.map((v) => ({ label: v, type: "enum" })) };
    }
    const here = schemaAt(schema, where.path);
    const properties = propertiesOf(here);
    return {
      from: word.from,
      options: Object.entries(properties).map(([k, s]) => ({ label: k, type: "property", apply: `${k}: `, ...(s.description ? { info: s.description } : {}) })),
      validFor: /^[A-Za-z0-9_]*$/,
    };
  };
}

export interface YamlEditor {
  view: EditorView;
  text(): string;
  /** Errors the control plane named (paths of this document), shown until the next edit. */
  showServerProblems(problems: Problem[]): void;
  destroy(): void;
}

export function createYamlEditor(
  host: HTMLElement,
  initial: string,
  schema: JsonSchema | undefined,
  options: { label: string; onChange?: () => void; readOnly?: boolean },
): YamlEditor {
  let server: Problem[] = [];
  const lint = linter(
    (view): Diagnostic[] => {
      const text = view.state.doc.toString();
      const lines = new LineCounter();
      const doc = parseDocument(text, { lineCounter: lines, prettyErrors: false });
      const syntax = doc.errors.map((e) => ({
        from: e.pos[0],
        to: Math.max(e.pos[0] + 1, e.pos[1]),
        severity: "error" as const,
        message: e.message.split("\n")[0] as string,
      }));
      if (syntax.length > 0) return syntax.map((d) => ({ ...d, to: Math.min(d.to, text.length), from: Math.min(d.from, text.length) }));
      const local = schema ? quickCheck(schema, doc.toJS()) : [];
      return [...local, ...server].map((p) => ({ ...rangeOf(text, p.path), severity: "error" as const, message: `${p.path.join(".")}: ${p.message}` }));
    },
    { delay: 300 },
  );
  const root = host.shadowRoot ?? host.attachShadow({ mode: "open" });
  const view = new EditorView({
    parent: root,
    root,
    state: EditorState.create({
      doc: initial,
      extensions: [
        lineNumbers(),
        history(),
        indentOnInput(),
        bracketMatching(),
        highlightActiveLine(),
        yaml(),
        syntaxHighlighting(highlight),
        theme,
        autocompletion({ override: schema ? [completeFrom(schema)] : [] }),
        lint,
        lintGutter(),
        keymap.of([...defaultKeymap, ...historyKeymap, ...completionKeymap, indentWithTab]),
        EditorView.contentAttributes.of({ "aria-label": options.label, ...(options.readOnly ? { "aria-readonly": "true" } : {}) }),
        // Read-only still takes focus, selection and copy; it refuses every change.
        EditorState.readOnly.of(options.readOnly === true),
        EditorView.updateListener.of((u) => {
          if (!u.docChanged) return;
          server = [];
          options.onChange?.();
        }),
      ],
    }),
  });
  return {
    view,
    text: () => view.state.doc.toString(),
    showServerProblems(problems) {
      server = problems;
      forceLinting(view);
    },
    destroy: () => view.destroy(),
  };
}
