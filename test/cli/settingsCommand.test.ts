import { describe, expect, it } from "vitest"
import { SETTING_GROUPS } from "../../src/cli/settings.js"
import { settingGroups } from "../../src/domain/Settings.js"

describe("settings list --group", () => {
  it("offers exactly the settings Schema's groups, in its order", () => {
    expect([...SETTING_GROUPS]).toEqual(Object.keys(settingGroups))
  })
})
