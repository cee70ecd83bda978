"""What a table page costs the device it runs on.

- It keeps up with a game at machine speed: the state frames that come before the page has drawn
  its next frame are all taken in, and the panels render once for them all (store.js,
  updateSoon). Rendering each frame in turn had left a page on a busy machine half a minute behind
  a game its seat's other tab and the bots had finished (the end never showed in time:
  tests/browser/test_hosts_rematch.py).
- It makes no sound context for who has not asked for the sound, and keeps the one it has
  suspended between chimes: a running context computes silence on a thread of its own.
"""

from __future__ import annotations

from typing import Any

from playwright.sync_api import expect

from tests.browser.conftest import NewPage, Server
from tests.browser.helpers import start_with_bots

# The store of the page itself (the same module instance as the page's panels): soon-updates are
# in the state at once and told once, with the union of their keys; an update told at once takes
# the waiting keys along; an empty update (a language switch) is told as "everything".
STORE_SCRIPT = """async () => {
  const store = await import("/static/js/store.js");
  const heard = [];
  const stop = store.subscribe((changed) => heard.push([...changed].sort()));
  const frame = () => new Promise((done) => requestAnimationFrame(() => setTimeout(done, 0)));
  const out = {};
  store.updateSoon({ version: 1, view: null });
  store.updateSoon({ version: 2, prompts: [] });
  out.versionAtOnce = store.state.version;
  out.heardAtOnce = heard.length;
  await frame();
  out.afterFrame = heard.splice(0);
  store.updateSoon({ version: 3 });
  store.update({ pending: null });
  out.withUpdate = heard.splice(0);
  await frame();
  out.nothingLeft = heard.splice(0);
  store.updateSoon({ version: 4 });
  store.update({});
  out.withRefresh = heard.splice(0);
  await frame();
  out.nothingLeftAgain = heard.splice(0);
  stop();
  return out;
}"""


def test_frames_before_the_next_paint_are_told_once(server: Server, new_page: NewPage) -> None:
    page = new_page("reader")
    page.goto(server.url + "/")
    out: dict[str, Any] = page.evaluate(STORE_SCRIPT)
    assert out["versionAtOnce"] == 2 and out["heardAtOnce"] == 0
    assert out["afterFrame"] == [["prompts", "version", "view"]]
    assert out["withUpdate"] == [["pending", "version"]]
    assert out["nothingLeft"] == []
    assert out["withRefresh"] == [[]]
    assert out["nothingLeftAgain"] == []


# Every sound context a document makes, and how often it was resumed.
COUNT_AUDIO = """
  window.__audio = [];
  window.__resumed = 0;
  const Real = window.AudioContext;
  if (Real) {
    class Counted extends Real {
      constructor(...args) { super(...args); window.__audio.push(this); }
      resume() { window.__resumed += 1; return super.resume(); }
    }
    window.AudioContext = Counted;
  }
"""
AUDIO_STATES = "() => window.__audio.map((a) => a.state)"


def test_no_sound_context_runs_but_for_a_chime(server: Server, new_page: NewPage) -> None:
    kim = new_page("kim")
    kim.add_init_script(COUNT_AUDIO)
    start_with_bots(kim, server, "Kim")  # clicks and keys: gestures that could start a context
    area = kim.locator("#action-area")
    expect(area).to_have_attribute("data-state", "bid")
    assert kim.evaluate(AUDIO_STATES) == []  # the sound is off: no context at all
    kim.locator("#alert-sound").check()
    kim.wait_for_function(
        "() => window.__audio.length === 1 && window.__audio[0].state === 'suspended'"
    )
    # Kim bids nothing; her next move chimes (the context runs), then it is suspended again.
    kim.get_by_role("button", name="Bid nothing").click()
    kim.wait_for_function("() => window.__resumed >= 1")
    kim.wait_for_function("() => window.__audio[0].state === 'suspended'")
    assert kim.evaluate(AUDIO_STATES) == ["suspended"]
