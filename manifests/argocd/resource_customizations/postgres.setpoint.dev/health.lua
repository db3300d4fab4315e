-- Argo CD health of setpoint's PostgresCluster and PostgresDatabase (one
-- script for both, installed under each kind's key), from what setpoint
-- reports: status.phase, the conditions and status.observedGeneration.
-- Argo CD runs health scripts with only Lua's base and table libraries:
-- no string.format here.
local hs = {}

local function condition(t)
  for _, c in ipairs(obj.status.conditions or {}) do
    if c.type == t then
      return c
    end
  end
  return nil
end

-- "Reason: message" of a condition, or fallback when it is absent.
local function explain(c, fallback)
  if c == nil then
    return fallback
  end
  if c.message ~= nil and c.message ~= "" then
    return c.reason .. ": " .. c.message
  end
  return c.reason
end

local function health(status, message)
  hs.status = status
  hs.message = message
  return hs
end

-- Reasons of the Ready condition that make a not-Failed object Degraded:
-- it cannot get anywhere by itself.
local stuck = {
  -- A database waiting on a cluster that failed or goes away.
  ClusterFailed = true,
  ClusterDeleting = true,
  -- A database's deletion waiting for someone to drop what depends on a
  -- role or a database.
  RoleCleanupBlocked = true,
  DatabaseCleanupBlocked = true,
}

-- A cluster's major upgrade (its MajorUpgrade condition False while it
-- runs or after it failed): the health of each reason; others run.
local upgrade = {
  -- Waits for the user: an object store, or the upgrade-without-backup
  -- annotation.
  UpgradeNeedsBackup = "Suspended",
  -- Failed; the cluster runs its old major.
  UpgradeFailed = "Degraded",
  UpgradeBackupFailed = "Degraded",
  UpgradePreflightFailed = "Degraded",
}

if obj.status == nil or obj.status.phase == nil or obj.status.phase == "" then
  return health("Progressing", "Waiting for setpoint to report the " .. obj.kind .. "'s status")
end

-- A status written for an older spec says nothing about the current one.
if obj.metadata.generation ~= nil and (obj.status.observedGeneration or 0) < obj.metadata.generation then
  return health("Progressing", "Waiting for setpoint to observe generation " .. tostring(obj.metadata.generation))
end

local phase = obj.status.phase
local ready = condition("Ready")

if phase == "Failed" then
  return health("Degraded", explain(ready, phase))
end

if ready ~= nil and stuck[ready.reason] then
  return health("Degraded", explain(ready, phase))
end

local major = condition("MajorUpgrade")
if major ~= nil and major.status == "False" and phase ~= "Deleting" then
  return health(upgrade[major.reason] or "Progressing", explain(major, "MajorUpgrade"))
end

if phase == "Ready" then
  -- Backup health never fails Ready (ADR-0003), but a cluster whose
  -- archive or backups fail cannot be restored: say so.
  local message = explain(ready, phase)
  local backup = condition("BackupHealthy")
  if backup ~= nil and backup.status == "False" then
    message = message .. "; " .. explain(backup, "BackupHealthy")
  end
  return health("Healthy", message)
end

if phase == "Pending" or phase == "Provisioning" or phase == "Configuring" or phase == "Deleting" then
  return health("Progressing", explain(ready, phase))
end

return health("Unknown", "Unknown phase " .. tostring(phase))
