import type { StoredResource } from "@meshplane/core/base";
import { ForbiddenError, NotFoundError } from "../shared/errors";
import type { DocumentWrite, Principal, Store } from "../store/index";
import { rootChangingField } from "./ca-record";

/**
 * A root-changing edit of a VirtualMesh (switching between a generated root and your own, or
 * dropping shared trust) is the admin's: refused 403 (ForbiddenError) naming the field for any other
 * role. The write is then made conditional on the version checked, so an edit in between cannot slip
 * past (412). Other writes come back as they are (docs/shared-trust.md#changing-the-root).
 */
export async function guardRootChange({ store }: { store: Store }, tenantId: string, principal: Principal, write: DocumentWrite): Promise<DocumentWrite> {
  if (write.doc.kind !== "VirtualMesh" || write.mode === "create" || (principal.kind === "tenant" && principal.role === "admin")) return write;
  const current = await store.resources.get(tenantId, "VirtualMesh", write.doc.metadata.name).catch((error: unknown) => {
    if (error instanceof NotFoundError) return undefined;
    throw error;
  });
  if (current === undefined) return write;
  const field = rootChangingField(current as StoredResource<"VirtualMesh">, write.doc as unknown as Pick<StoredResource<"VirtualMesh">, "spec">);
  if (field !== undefined)
    throw new ForbiddenError(
      `${field}: this edit changes the root of VirtualMesh ${write.doc.metadata.name}'s CA and needs the admin role (it then moves to the new root in phases)`,
    );
  return { ...write, ifMatch: write.ifMatch ?? current.metadata.resourceVersion };
}
