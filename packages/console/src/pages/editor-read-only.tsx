import { useEffect, useRef } from "preact/hooks";
import type { ResourceSource } from "../authored";
import { createYamlEditor } from "../editor/yaml-editor";
import { AuthoredNote } from "./source";

/**
 * A resource authored in a cluster, in the editor read-only (docs/gitops.md#names-and-sources): it
 * can be read, selected and copied, and nothing is offered to store it — where Preview and Apply
 * would be, the note says where to change it.
 */
export function ReadOnlyYaml({ text, kind, source }: { text: string; kind: string; source: ResourceSource }) {
  const host = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const editor = createYamlEditor(host.current as HTMLDivElement, text, undefined, { label: "Policy YAML (read-only)", readOnly: true });
    return () => editor.destroy();
  }, [text]);
  return (
    <>
      <div ref={host} class="editor" />
      <AuthoredNote kind={kind} source={source} />
    </>
  );
}
