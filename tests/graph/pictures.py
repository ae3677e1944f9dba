"""Geometry of the graph pictures (svg.render's SVG), read back from the SVG text."""
import re

from minieager.debugger.png import _curve


def assert_no_edge_through_a_box(svg):
    """In the picture itself: no two node boxes intersect, and no edge passes through a box."""
    boxes, edges = [], []
    # Each picture of the pair is a translated group; read them one by one.
    for dx, dy, body in re.findall(r'<g transform="translate\(([-\d.]+),([-\d.]+)\)">(.*?)(?=<g transform="translate|</svg>)', svg, re.S):
        dx, dy = float(dx), float(dy)
        for x, y, w, h in re.findall(r'<g data-node-id="[^"]*"[^>]*>(?:<title>.*?</title>)?<rect x="([-\d.]+)" y="([-\d.]+)" '
                                     r'width="([\d.]+)" height="([\d.]+)"', body):
            x, y = float(x) + dx, float(y) + dy
            boxes.append((x, y, x + float(w), y + float(h)))
        for d in re.findall(r'<path d="([^"]+)" fill="none"', body):
            edges.append([(px + dx, py + dy) for px, py in _curve(d)])
    assert boxes and edges
    for i, a in enumerate(boxes):
        for b in boxes[i + 1:]:
            assert not (min(a[2], b[2]) > max(a[0], b[0]) and min(a[3], b[3]) > max(a[1], b[1])), (a, b)
    for pts in edges:
        inner = pts[2:-2]
        for x0, y0, x1, y1 in boxes:
            ends = [p for p in (pts[0], pts[-1]) if x0 - 4 <= p[0] <= x1 + 4 and y0 - 4 <= p[1] <= y1 + 4]
            if ends:
                continue
            assert not [p for p in inner if x0 + 1.5 < p[0] < x1 - 1.5 and y0 + 1.5 < p[1] < y1 - 1.5], (pts[0], pts[-1])
