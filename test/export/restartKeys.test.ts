import { describe, expect, it } from "vitest"
import { exportCompose } from "../../src/export/compose.js"
import { exportKubernetes } from "../../src/export/kubernetes.js"
import { exportNomad } from "../../src/export/nomad.js"
import { exportSystemd } from "../../src/export/systemd.js"
import { useSandbox } from "../config/helpers.js"
import { fileNamed, loadShop, nomadGroups } from "./fixture.js"

// restart, success_exit_codes and restart_dependents in each export target
const POLICIES = `[daemons.db]
run = "postgres"
restart = "always"
restart_dependents = true
success_exit_codes = [0, 143]

[daemons.api]
run = "node server.js"
depends = ["db"]
retry = 3
restart = "never"
`

describe("export: restart policies", () => {
  const sandbox = useSandbox()

  it("systemd: Restart=always, Restart=no for never, SuccessExitStatus=, PartOf= on the dependent", async () => {
    const { files, warnings } = exportSystemd(await loadShop(sandbox(), POLICIES))
    const db = fileNamed(files, "shop--db.service")
    expect(db).toContain("Restart=always\n")
    expect(db).toContain("StartLimitIntervalSec=0\n")
    expect(db).toContain("SuccessExitStatus=143\n")
    const api = fileNamed(files, "shop--api.service")
    expect(api).toContain("Restart=no\n")
    expect(api).toContain("PartOf=shop--db.service\n")
    expect(warnings.filter((w) => /success_exit_codes|restart_dependents/.test(w))).toEqual([])
  })

  it("compose: restart always / no, depends_on restart: true, a warning for the exit codes", async () => {
    const { files, warnings } = exportCompose(await loadShop(sandbox(), POLICIES))
    const yaml = fileNamed(files, "compose.yaml")
    expect(yaml).toMatch(/shop--db:\n(?:.*\n)*?\s+restart: always\n/)
    expect(yaml).toMatch(/shop--api:\n(?:.*\n)*?\s+restart: "?no"?\n/)
    expect(yaml).toMatch(/depends_on:\n\s+shop--db:\n\s+condition: service_started\n\s+restart: true\n/)
    expect(warnings).toContain(
      "shop/db: success_exit_codes (0, 143) has no compose equivalent: an exit other than 0 is a failure there",
    )
  })

  it("kubernetes: always maps to the Deployment's restartPolicy; never and the other keys are warnings", async () => {
    const { warnings } = exportKubernetes(await loadShop(sandbox(), POLICIES))
    expect(warnings).toEqual(
      expect.arrayContaining([
        'shop/api: restart ("never") is not mapped: a Deployment always restarts its pod',
        "shop/db: restart_dependents has no kubernetes equivalent: its dependents are not restarted with it",
        "shop/db: success_exit_codes (0, 143) has no kubernetes equivalent: an exit other than 0 is a failure there",
      ]),
    )
    expect(warnings.some((w) => w.startsWith("shop/db: retry"))).toBe(false)
  })

  it("nomad: never is no restart attempt, always restarts without a limit", async () => {
    const { files } = exportNomad(await loadShop(sandbox(), POLICIES))
    const policy = (name: string) => nomadGroups(files).get(name)!.group.RestartPolicy
    expect(policy("shop--api")).toMatchObject({ Attempts: 0, Mode: "fail" })
    expect(policy("shop--db")).toMatchObject({ Mode: "delay" })
  })
})
