import { z } from "zod";
import { dnsLabel, dnsSubdomain, exactlyOne, labelMap, serviceRef } from "./common";

export const kubeServiceMatcher = z.strictObject({
  labels: labelMap.optional(),
  namespaces: z.array(dnsLabel).optional(),
  clusters: z.array(dnsLabel).optional(),
});

/** Either a matcher or explicit refs; a list of selectors is OR, an empty list matches every destination. */
export const destinationSelector = z
  .strictObject({
    kubeServiceMatcher: kubeServiceMatcher.optional(),
    kubeServiceRefs: z.strictObject({ services: z.array(serviceRef).min(1) }).optional(),
  })
  .refine((s) => (s.kubeServiceMatcher === undefined) !== (s.kubeServiceRefs === undefined), {
    message: "set exactly one of kubeServiceMatcher or kubeServiceRefs",
  })
  .meta(exactlyOne("kubeServiceMatcher", "kubeServiceRefs"));
export type DestinationSelector = z.infer<typeof destinationSelector>;

export const workloadSelector = z.strictObject({
  kubeWorkloadMatcher: z.strictObject({
    labels: labelMap.optional(),
    namespaces: z.array(dnsLabel).optional(),
    clusters: z.array(dnsLabel).optional(),
  }),
});
export type WorkloadSelector = z.infer<typeof workloadSelector>;

/** A service account; without `cluster` it names the account in every cluster (as in Gloo Mesh), including clusters registered later. */
export const serviceAccountRef = z.strictObject({ cluster: dnsLabel.optional(), namespace: dnsLabel, name: dnsSubdomain });

export const identitySelector = z
  .strictObject({
    kubeIdentityMatcher: z.strictObject({ namespaces: z.array(dnsLabel).optional(), clusters: z.array(dnsLabel).optional() }).optional(),
    kubeServiceAccountRefs: z.strictObject({ serviceAccounts: z.array(serviceAccountRef).min(1) }).optional(),
  })
  .refine((s) => (s.kubeIdentityMatcher === undefined) !== (s.kubeServiceAccountRefs === undefined), {
    message: "set exactly one of kubeIdentityMatcher or kubeServiceAccountRefs",
  })
  .meta(exactlyOne("kubeIdentityMatcher", "kubeServiceAccountRefs"));
export type IdentitySelector = z.infer<typeof identitySelector>;
