"""An OpenAI-style streaming chat completions API for EventSource loopback tests (aiohttp).

Binds 127.0.0.1 on a free port and prints PORT=<n> first (loopback.serve). Each request prints
`REQUEST <method> <n>` (n counts from 1), so tests can tell whether a client sent it again.

  POST /v1/chat/completions    JSON body {"model": ..., "messages": [{"role", "content"}, ...],
                               "stream": true} with `Authorization: Bearer <key>`: the words of
                               the last message's content come back one per chunk, each
                               `data: {"id": ..., "object": "chat.completion.chunk", "model": ...,
                               "choices": [{"index": 0, "delta": {"content": ...},
                               "finish_reason": null}]}`, then a chunk with an empty delta and
                               `"finish_reason": "stop"`, then `data: [DONE]`, and the response
                               ends. Response headers: `x-request-id: req-<n>`, `openai-model`,
                               `x-ratelimit-remaining-requests: 99`.
      ?after_done=hold         after `[DONE]` the response stays open (pings every 50 ms) until
                               the client disconnects; prints `DISCONNECTED <n>` then
      ?cut=N                   the connection is closed after N content chunks, without `[DONE]`
      ?decoy=1                 one chunk's data is `[DONE] is not the end` (not the terminator)
  Without `Authorization`      401 with a JSON error body
  ?status=429                  429 with `retry-after: 1`, `x-ratelimit-remaining-requests: 0` and
                               a JSON error body
  ?plain=1                     200 `application/json`, a whole (non-streamed) completion
  /hold/v1/chat/completions    as ?after_done=hold, for clients that only take a base URL
  /ratelimited/v1/...          as ?status=429
"""
import asyncio
import json

from aiohttp import web
import loopback

counter = 0


def chunk(request_id, model, delta, finish_reason=None):
    return json.dumps({
        "id": request_id,
        "object": "chat.completion.chunk",
        "created": 1700000000,
        "model": model,
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish_reason}],
    })


async def completions(request):
    global counter
    counter += 1
    number = counter
    print(f"REQUEST {request.method} {number}", flush=True)
    headers = {"x-request-id": f"req-{number}", "x-ratelimit-remaining-requests": "99"}
    query = dict(request.query)
    mode = request.match_info.get("mode")
    if mode == "hold":
        query["after_done"] = "hold"
    elif mode == "ratelimited":
        query["status"] = "429"
    if query.get("status") == "429":
        headers.update({"retry-after": "1", "x-ratelimit-remaining-requests": "0"})
        return web.json_response({"error": {"message": "Rate limit reached", "type": "requests"}},
                                 status=429, headers=headers)
    if not request.headers.get("Authorization", "").startswith("Bearer "):
        return web.json_response({"error": {"message": "Missing API key", "type": "invalid_request_error"}},
                                 status=401, headers=headers)
    body = await request.json()
    model = body.get("model", "test-model")
    words = body["messages"][-1]["content"].split(" ")
    request_id = f"chatcmpl-{number}"
    if query.get("plain") == "1":
        return web.json_response({"id": request_id, "object": "chat.completion",
                                  "choices": [{"index": 0, "message": {"role": "assistant",
                                                                      "content": " ".join(words)}}]},
                                 headers=headers)
    headers.update({"Content-Type": "text/event-stream", "Cache-Control": "no-cache", "openai-model": model})
    response = web.StreamResponse(status=200, headers=headers)
    await response.prepare(request)
    await response.write(("data: " + chunk(request_id, model, {"role": "assistant", "content": ""}) + "\n\n").encode())
    cut = int(query.get("cut", "0"))
    for index, word in enumerate(words):
        if cut and index == cut:
            request.transport.close()
            return response
        content = word if index == 0 else " " + word
        await response.write(("data: " + chunk(request_id, model, {"content": content}) + "\n\n").encode())
        if query.get("decoy") == "1" and index == 0:
            await response.write(b"data: [DONE] is not the end\n\n")
        await asyncio.sleep(0.001)
    await response.write(("data: " + chunk(request_id, model, {}, "stop") + "\n\n").encode())
    await response.write(b"data: [DONE]\n\n")
    if query.get("after_done") == "hold":
        try:
            while request.transport is not None and not request.transport.is_closing():
                await response.write(b": ping\n\n")
                await asyncio.sleep(0.05)
        except (ConnectionResetError, RuntimeError):
            pass
        finally:
            print(f"DISCONNECTED {number}", flush=True)
        return response
    await response.write_eof()
    return response


def main():
    app = web.Application()
    app.router.add_route("*", "/v1/chat/completions", completions)
    app.router.add_route("*", "/{mode}/v1/chat/completions", completions)
    loopback.serve(app)


if __name__ == "__main__":
    main()
