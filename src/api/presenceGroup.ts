// The routes of the shell hook and of project sessions (docs/shell.md): `supervisor cd`,
// `supervisor project enter|leave|list`, and IDEs or agents over the API.
import { HttpApiEndpoint, HttpApiGroup } from "@effect/platform"
import {
  PresenceEntry,
  PresenceList,
  ProcessGone,
  SessionEnter,
  SessionLeave,
  SessionsLeft,
  ShellCdAnswer,
  ShellCdRequest,
} from "../domain/Presence.js"

export class PresenceGroup extends HttpApiGroup.make("presence")
  .add(
    /** The shell hook: answers at once (the starts and stops run on), with the notices to print. */
    HttpApiEndpoint.post("shellCd", "/api/shells/cd").setPayload(ShellCdRequest).addSuccess(ShellCdAnswer),
  )
  .add(HttpApiEndpoint.get("presence", "/api/sessions").addSuccess(PresenceList))
  .add(
    HttpApiEndpoint.post("enter", "/api/sessions")
      .setPayload(SessionEnter)
      .addSuccess(PresenceEntry)
      .addError(ProcessGone, { status: 404 }),
  )
  .add(
    HttpApiEndpoint.post("leave", "/api/sessions/leave").setPayload(SessionLeave).addSuccess(SessionsLeft),
  ) {}
