"""The league's web app: students log in, upload bots, follow their checks and games; the
teacher administers the league (`cxarena league serve`).

- `app.create_app(dir)`: the Starlette app (server-rendered Jinja2 pages, one small JSON
  endpoint polled by the submission page) from `routes` (one module per area) and `common`
  (what they share), over the Python API of `arena.league`;
- `security`: CSRF tokens, the login rate limit, the request body cap, the Host check;
- `server.serve(...)`: uvicorn on loopback by default, plus the league's workers.
"""
