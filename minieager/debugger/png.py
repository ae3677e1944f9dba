"""A PNG of the debugger's own SVG (``svg.render``), for places that drop inline SVG.

JupyterLab 4 and Notebook 7 show an untrusted notebook's outputs through a sanitiser: HTML
loses its ``<svg>`` and ``image/svg+xml`` is not rendered at all, but ``image/png`` is. So the
saved picture of each debugger is also sent as a PNG. This draws the small SVG subset that
``svg.render`` writes (rounded rects, text, cubic-curve paths with arrow heads, group opacity)
with Pillow: one picture, two encodings, never a second drawing of the graph.

The fonts are the DejaVu faces matplotlib ships (a notebook dependency), else Pillow's own,
so the picture looks the same on every machine with the same packages.
"""
import functools
import importlib.util
import io
import re
from pathlib import Path
from xml.etree import ElementTree

SVG = "{http://www.w3.org/2000/svg}"
SCALE = 2          # drawn at 2x, then halved: Pillow draws shapes without anti-aliasing
NUMBER = re.compile(r"-?\d*\.?\d+(?:e[-+]?\d+)?")


@functools.lru_cache(maxsize=None)
def _font(size, mono, bold):
    spec = importlib.util.find_spec("matplotlib")
    from PIL import ImageFont
    if spec and spec.submodule_search_locations:
        ttf = Path(next(iter(spec.submodule_search_locations))) / "mpl-data" / "fonts" / "ttf"
        name = ("DejaVuSansMono" if mono else "DejaVuSans") + ("-Bold" if bold else "") + ".ttf"
        if (ttf / name).exists():
            return ImageFont.truetype(str(ttf / name), size)
    return ImageFont.load_default(size)


def _colour(text, opacity=1.0):
    """'#abc' / '#aabbcc' -> (r, g, b, a); None for 'none' or anything else."""
    if not text or not text.startswith("#"):
        return None
    h = text[1:]
    if len(h) == 3:
        h = "".join(c * 2 for c in h)
    return (int(h[0:2], 16), int(h[2:4], 16), int(h[4:6], 16), round(255 * opacity))


def _curve(d):
    """Points along a path 'M x,y C x,y x,y x,y [C ...]' (the only kind svg.render writes: one
    cubic, or dot's route of several)."""
    v = [float(x) for x in NUMBER.findall(d)]
    if len(v) < 8 or (len(v) - 2) % 6:
        return None
    pts = [(v[0], v[1])]
    for k in range(2, len(v), 6):
        (x0, y0), (x1, y1, x2, y2, x3, y3) = pts[-1], v[k:k + 6]
        for i in range(1, 25):
            t = i / 24
            u = 1 - t
            pts.append((u ** 3 * x0 + 3 * u * u * t * x1 + 3 * u * t * t * x2 + t ** 3 * x3,
                        u ** 3 * y0 + 3 * u * u * t * y1 + 3 * u * t * t * y2 + t ** 3 * y3))
    return pts


def to_png(svg_text):
    """PNG bytes of an SVG written by ``svg.render``."""
    from PIL import Image, ImageDraw

    root = ElementTree.fromstring(svg_text)
    vx, vy, vw, vh = (float(x) for x in root.get("viewBox").split())
    size = (max(1, round(vw * SCALE)), max(1, round(vh * SCALE)))
    markers = {m.get("id"): _colour(m.find(f"{SVG}path").get("fill")) for m in root.iter(f"{SVG}marker")}
    image = Image.new("RGBA", size, (255, 255, 255, 255))

    def draw_into(target, parent, dx=0.0, dy=0.0, origin=(0, 0)):
        def xy(x, y):
            return ((x + dx - vx) * SCALE - origin[0], (y + dy - vy) * SCALE - origin[1])

        for el in parent:
            tag = el.tag.replace(SVG, "")
            opacity = float(el.get("opacity", 1))
            # A group may be moved (svg.arrange puts several pictures into one with translate).
            shift = [float(v) for v in NUMBER.findall(el.get("transform", ""))] if tag == "g" else []
            gx, gy = (dx + shift[0], dy + shift[1]) if len(shift) == 2 else (dx, dy)
            if tag == "g" and opacity < 1:       # a faded node: drawn apart, then blended in
                # On a layer as big as the node (its box, with room for a border and a badge): a
                # layer the size of the picture for each faded node took seconds on big graphs.
                (x0, y0), (x1, y1) = _extent(el, lambda x, y: xy(x + gx - dx, y + gy - dy)) or ((0, 0), target.size)
                x0, y0 = max(0, int(x0) - 24 * SCALE), max(0, int(y0) - 24 * SCALE)
                x1, y1 = min(target.width, int(x1) + 24 * SCALE), min(target.height, int(y1) + 24 * SCALE)
                if x1 <= x0 or y1 <= y0:
                    continue
                layer = Image.new("RGBA", (x1 - x0, y1 - y0), (0, 0, 0, 0))
                draw_into(layer, el, gx, gy, (origin[0] + x0, origin[1] + y0))
                layer.putalpha(layer.getchannel("A").point(lambda a: round(a * opacity)))
                target.alpha_composite(layer, dest=(x0, y0))
            elif tag == "g":
                draw_into(target, el, gx, gy, origin)
            elif tag in ("rect", "path", "text", "line"):
                _draw(ImageDraw.Draw(target, "RGBA"), tag, el, xy, markers)

    draw_into(image, [e for e in root if e.tag != f"{SVG}defs"])
    out = io.BytesIO()
    # Halved by averaging each 2x2 block (the anti-aliasing of a picture drawn at 2x): as smooth as
    # a Lanczos filter here, and several times faster on the tall pictures of big graphs.
    small = image.convert("RGB").reduce(SCALE)
    # 128 colours are plenty for flat fills and anti-aliased text, and make the file ~3x smaller
    # (every saved notebook carries one per debugger).
    small.quantize(colors=128, dither=Image.Dither.NONE).save(out, "PNG", optimize=True)
    return out.getvalue()


def _extent(group, xy):
    """((x0, y0), (x1, y1)): the corners, in the picture's px, of every box in ``group``."""
    corners = []
    for el in group.iter(f"{SVG}rect"):
        w, h = el.get("width", "0"), el.get("height", "0")
        if w.endswith("%") or h.endswith("%"):
            continue
        x, y = float(el.get("x", 0)), float(el.get("y", 0))
        corners += [xy(x, y), xy(x + float(w), y + float(h))]
    if not corners:
        return None
    return (min(c[0] for c in corners), min(c[1] for c in corners)), (max(c[0] for c in corners), max(c[1] for c in corners))


def _draw(draw, tag, el, xy, markers):
    width = float(el.get("stroke-width", 1)) * SCALE
    stroke = _colour(el.get("stroke"))
    if tag == "rect":
        x, y = xy(float(el.get("x", 0)), float(el.get("y", 0)))
        w, h = el.get("width"), el.get("height")
        if w.endswith("%"):        # the background
            return draw.rectangle([0, 0, *draw.im.size], fill=_colour(el.get("fill")))
        box = [x, y, x + float(w) * SCALE, y + float(h) * SCALE]
        fill = _colour(el.get("fill"), float(el.get("fill-opacity", 1)))
        draw.rounded_rectangle(box, radius=float(el.get("rx", 0)) * SCALE, fill=fill,
                               outline=stroke, width=max(1, round(width)) if stroke else 0)
    elif tag == "line":
        draw.line([xy(float(el.get("x1")), float(el.get("y1"))), xy(float(el.get("x2")), float(el.get("y2")))],
                  fill=stroke, width=max(1, round(width)))
    elif tag == "path":
        pts = _curve(el.get("d", ""))
        if not pts or not stroke:
            return
        pts = [xy(*p) for p in pts]
        draw.line(pts, fill=stroke, width=max(1, round(width)), joint="curve")
        marker = re.search(r"#([\w-]+)", el.get("marker-end", ""))
        if marker:          # the arrow head: a triangle along the last segment
            (ax, ay), (bx, by) = pts[-2], pts[-1]
            length = max(1e-6, ((bx - ax) ** 2 + (by - ay) ** 2) ** 0.5)
            ux, uy = (bx - ax) / length, (by - ay) / length
            s = 9 * SCALE
            draw.polygon([(bx + ux * 3 * SCALE, by + uy * 3 * SCALE),
                          (bx - ux * s - uy * s * 0.45, by - uy * s + ux * s * 0.45),
                          (bx - ux * s + uy * s * 0.45, by - uy * s - ux * s * 0.45)],
                         fill=markers.get(marker.group(1), stroke))
    else:
        text = el.text or ""
        size = float(el.get("font-size", 12)) * SCALE
        font = _font(round(size), "mono" in el.get("font-family", "").lower(),
                     el.get("font-weight", "normal") in ("bold", "600", "650", "700"))
        anchor = {"start": "ls", "middle": "ms", "end": "rs"}[el.get("text-anchor", "start")]
        draw.text(xy(float(el.get("x")), float(el.get("y"))), text, font=font,
                  fill=_colour(el.get("fill")) or (0, 0, 0, 255), anchor=anchor)
