#!/usr/bin/env python3
"""Writes corpus.txt: lines like those people paste into chats, mails,
commit messages, logs and Markdown, with the links (and the things that are
not links) that such text carries. Seeded, so the corpus is reproducible;
the committed corpus.txt is what the agreement check reads."""
import random

rng = random.Random(20261130)

sites = ["github.com", "gitlab.com", "example.com", "example.org", "docs.python.org", "en.wikipedia.org",
         "news.ycombinator.com", "stackoverflow.com", "www.bbc.co.uk", "www.nytimes.com", "swift.org",
         "forums.swift.org", "developer.apple.com", "crates.io", "pypi.org", "www.debian.org", "wiki.archlinux.org",
         "zoom.us", "meet.google.com", "docs.google.com", "drive.google.com", "www.youtube.com", "youtu.be",
         "twitter.com", "x.com", "mastodon.social", "www.reddit.com", "old.reddit.com", "medium.com", "substack.com",
         "example.atlassian.net", "jira.example.com", "grafana.internal.example.net", "status.example.io",
         "bücher.de", "münchen.de", "пример.рф", "例子.中国", "shop.example.co.jp", "api.example.dev", "blog.example.app"]
paths = ["", "/", "/docs", "/docs/getting-started", "/a/b/c", "/issues/1234", "/pull/56/files", "/wiki/Swift_(programming_language)",
         "/search?q=swift+linux", "/watch?v=dQw4w9WgXcQ", "/r/linux/comments/abc123/title_here/", "/en-US/docs/Web/HTTP",
         "/blog/2024/05/hello-world.html", "/path/with-dash_and_underscore", "/download?file=report.pdf&v=2",
         "/#section-2", "/x?utm_source=news&utm_medium=mail", "/~user/page", "/api/v1/items/42", "/straße/über",
         "/j/85512345678?pwd=abc", "/@someone/post-title-1a2b3c", "/questions/123/how-to-x", "/a%20b/c%2Fd"]
people = ["jane", "john.doe", "a.smith", "dev+alerts", "support", "noreply", "first_last", "m.müller", "ops-team", "x"]
mail_domains = ["example.com", "example.org", "mail.example.co.uk", "company.io", "uni.example.edu", "bücher.de"]
non_links = ["v1.2.3", "version 2.10.0", "on 2024-01-15", "at 10:30", "for $1,234.56", "from 192.168.1.10",
             "in README.md", "see setup.py", "run ./build.sh", "edit main.rs", "open report.pdf", "file index.html",
             "e.g. this", "i.e. that", "3.14", "50%", "node.js", "ASP.NET", "config.yaml", "Dockerfile", "foo.bar",
             "the .env file", "@jane", "#1234", "C:\\Users\\me", "~/.config/openurld", "user@localhost", "git@github.com:me/repo.git",
             "ticket JIRA-123", "12:30:45", "pi = 3.14159", "IPv6 ::1", "build #5678", "commit a1b2c3d", "npm i @scope/pkg@1.2.3"]
phones = ["+1 (555) 010-9999", "+44 20 7946 0958", "(555) 010-9999", "555-010-9999", "+49 30 1234567", "020 7946 0958"]

def url(scheme=None):
    site = rng.choice(sites)
    path = rng.choice(paths)
    s = scheme or rng.choice(["https://", "https://", "https://", "http://", ""])
    if s == "" and not site.startswith("www."):
        # Bare addresses: mostly well-known hosts, as people write them.
        pass
    return s + site + path

def email():
    # Internationalised addresses exist, but are rare in the wild.
    person = rng.choices(people, weights=[10, 10, 10, 5, 8, 5, 5, 1, 5, 3])[0]
    return person + "@" + rng.choices(mail_domains, weights=[10, 10, 5, 5, 5, 1])[0]

def wrap(link):
    # As often as people write them: mostly bare, sometimes in brackets or quotes.
    style = rng.random()
    if style < 0.08: return f"({link})"
    if style < 0.11: return f"<{link}>"
    if style < 0.14: return f"\"{link}\""
    if style < 0.16: return f"'{link}'"
    if style < 0.17: return f"[{link}]"
    if style < 0.18: return f"**{link}**"
    if style < 0.20: return f"`{link}`"
    return link

def end():
    return rng.choices(["", ".", ",", "!", "?", ":", ";", " :)", "...", ")."],
                       weights=[40, 25, 13, 5, 5, 2, 2, 3, 3, 2])[0]

templates = [
    lambda: f"see {wrap(url())}{end()}",
    lambda: f"Check this out {wrap(url())}{end()}",
    lambda: f"PR is up: {url('https://')}{end()} ptal",
    lambda: f"docs at {url()} and {url()}{end()}",
    lambda: f"mail {wrap(email())}{end()}",
    lambda: f"Contact: {email()}, {email()}",
    lambda: f"From: Jane Doe <{email()}>",
    lambda: f"Reply to {email()} or visit {url()}{end()}",
    lambda: f"[{rng.choice(['docs', 'the RFC', 'this', 'link', 'here'])}]({url('https://')}){end()}",
    lambda: f"See [{rng.choice(['guide', 'issue', 'post'])}]({url('https://')} \"title\") for details",
    lambda: f"![screenshot](https://{rng.choice(sites)}/img/shot-{rng.randint(1, 99)}.png)",
    lambda: f"<a href=\"{url('https://')}\">{rng.choice(['click', 'here', 'site'])}</a>",
    lambda: f"<p>More at {url('https://')}</p>",
    lambda: f"{rng.choice(['INFO', 'WARN', 'ERROR'])} 2024-05-{rng.randint(10, 28)}T12:{rng.randint(10, 59)}:00Z GET {url('https://')} 200 {rng.randint(1, 999)}ms",
    lambda: f"curl -fsSL {url('https://')} | sh",
    lambda: f"git clone {rng.choice(['https://github.com/swiftlang/swift.git', 'git@github.com:me/repo.git', 'https://gitlab.com/group/project.git'])}",
    lambda: f"Fixed in {rng.choice(non_links)}, see {url()}{end()}",
    lambda: f"{rng.choice(non_links)} and {rng.choice(non_links)}",
    lambda: f"{rng.choice(non_links)}; {url()}{end()}",
    lambda: f"Call me at {rng.choice(phones)} or mail {email()}",
    lambda: f"Meeting: {url('https://')}{rng.choice(['', ' (passcode 123456)'])}",
    lambda: f"— {rng.choice(['via', 'source:', 'cc'])} {url()}",
    lambda: f"{url()}",
    lambda: f"Wikipedia: https://en.wikipedia.org/wiki/{rng.choice(['Swift_(programming_language)', 'Linux', 'D-Bus', 'URL_(disambiguation)'])}{end()}",
    lambda: f"(see https://en.wikipedia.org/wiki/{rng.choice(['Swift_(programming_language)', 'Rust_(programming_language)'])}).",
    lambda: f"Try www.{rng.choice(['example.com', 'example.org', 'debian.org', 'python.org'])}{rng.choice(['', '/docs', '/downloads/'])}{end()}",
    lambda: f"IDN: https://{rng.choice(['münchen.de', 'bücher.de', 'пример.рф', '例子.中国'])}{rng.choice(['', '/путь', '/straße'])}{end()}",
    lambda: f"ssh into {rng.choice(['host.example.com', 'db-1.internal.example.net', '10.0.0.5'])} and check {rng.choice(non_links)}",
    lambda: f"Use http://localhost:{rng.choice([3000, 8000, 8080])}/{rng.choice(['', 'api', 'admin'])} for dev",
    lambda: f"IPv6 test http://[2001:db8::{rng.randint(1, 99)}]:8080/ ok",
    lambda: f"Auth: https://user:token@{rng.choice(sites)}/private{end()}",
    lambda: f"{rng.choice(['Thanks!', 'lol', 'ok', 'Ship it.', 'LGTM'])} {url()}",
    lambda: f"zoommtg://zoom.us/join?confno={rng.randint(10**9, 10**10)} or {url('https://')}",
    lambda: f"mailto:{email()}?subject=Hello",
    lambda: f"Email {email()}.",
    lambda: f"{email()}: please review {url('https://')}",
    lambda: f"RT @someone: new post {url('https://')} #swift",
    lambda: f"Sentence ends here.Next sentence starts and example.com is mentioned.",
    lambda: f"price {rng.choice(['$19.99', '€5,00', '£1.5k'])}, order at {url()}{end()}",
]

# How often each template is drawn: plain links in prose most, the exotic
# ones (IPv6 literals, credentials in URLs, mailto with a query) seldom.
weights = [12, 10, 6, 6, 6, 3, 3, 4, 3, 2, 2, 3, 2, 3, 2, 2, 3, 5, 3, 3, 3, 3, 8, 2, 2, 3, 2, 3, 2, 1, 1, 4, 1, 1, 3, 2, 3, 1, 2]
assert len(weights) == len(templates), (len(weights), len(templates))
lines = set()
while len(lines) < 620:
    lines.add(rng.choices(templates, weights=weights)[0]())
with open("corpus.txt", "w") as f:
    for line in sorted(lines, key=lambda _: rng.random()):
        f.write(line + "\n")
print(f"{len(lines)} lines")
