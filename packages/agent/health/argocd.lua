-- Argo CD's health check for meshplane's custom resources (docs/gitops.md#argo-cd): the same script
-- for VirtualMesh, TrafficPolicy and AccessPolicy (group meshplane.dev), under the argocd-cm keys
-- resource.customizations.health.meshplane.dev_<Kind>. It reads the status the agent writes
-- (docs/gitops.md#status-in-the-cluster): Stalled is Degraded, Ready is Healthy, anything else —
-- Reconciling, Ready Unknown or False, no status yet, or a status about an older generation — is
-- Progressing. Plain Lua 5.1 (Argo CD's interpreter), no library but ipairs.
local hs = {}

local function condition(conditions, kind)
  for _, c in ipairs(conditions) do
    if c.type == kind then
      return c
    end
  end
  return nil
end

-- A condition's message, or its reason when it has none.
local function text(c)
  if c.message ~= nil and c.message ~= "" then
    return c.message
  end
  return c.reason or ""
end

-- "Reason: message".
local function describe(c)
  local reason = c.reason or ""
  local message = c.message or ""
  if reason == "" then
    return message
  end
  if message == "" then
    return reason
  end
  return reason .. ": " .. message
end

local generation = 0
if obj.metadata ~= nil and obj.metadata.generation ~= nil then
  generation = obj.metadata.generation
end
local status = obj.status
if status == nil or status.observedGeneration == nil or status.observedGeneration < generation then
  hs.status = "Progressing"
  hs.message = "waiting for meshplane"
  return hs
end

local conditions = status.conditions or {}
local stalled = condition(conditions, "Stalled")
if stalled ~= nil and stalled.status == "True" then
  hs.status = "Degraded"
  hs.message = text(stalled)
  return hs
end
local ready = condition(conditions, "Ready")
if ready ~= nil and ready.status == "True" then
  hs.status = "Healthy"
  hs.message = text(ready)
  return hs
end
local reconciling = condition(conditions, "Reconciling")
if reconciling ~= nil and reconciling.status == "True" then
  hs.status = "Progressing"
  hs.message = describe(reconciling)
  return hs
end
hs.status = "Progressing"
if ready ~= nil then
  hs.message = describe(ready)
else
  hs.message = "waiting for meshplane"
end
return hs
