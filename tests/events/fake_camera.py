"""A video for Chromium's fake camera made from an image: the ticket's QR PNG, centred on a
white frame, written as a YUV4MPEG2 (.y4m) file, which Chromium plays in a loop with
``--use-fake-device-for-media-stream --use-file-for-fake-video-capture=<file.y4m>``.

The format: one header line ``YUV4MPEG2 W<w> H<h> F25:1 Ip A1:1 C420jpeg``, then per frame a
line ``FRAME`` and the Y plane (w*h bytes), then U and V at half width and half height."""
import io

from PIL import Image

WIDTH, HEIGHT = 640, 480


def frame_of(png_bytes, width=WIDTH, height=HEIGHT):
    """The image scaled (without smoothing: QR modules stay sharp) to fit the frame with a
    margin, centred on white."""
    image = Image.open(io.BytesIO(png_bytes)).convert("RGB")
    side = int(min(width, height) * 0.8)
    factor = max(1, side // max(image.size))
    image = image.resize((image.width * factor, image.height * factor), Image.NEAREST)
    frame = Image.new("RGB", (width, height), "white")
    frame.paste(image, ((width - image.width) // 2, (height - image.height) // 2))
    return frame


def y4m_bytes(frame, frames=10):
    """The .y4m video showing ``frame`` (an RGB image of even size) ``frames`` times."""
    width, height = frame.size
    y, u, v = frame.convert("YCbCr").split()
    half = (width // 2, height // 2)
    planes = y.tobytes() + u.resize(half, Image.BOX).tobytes() + v.resize(half, Image.BOX).tobytes()
    header = f"YUV4MPEG2 W{width} H{height} F25:1 Ip A1:1 C420jpeg\n".encode()
    return header + (b"FRAME\n" + planes) * frames


def write_y4m(png_bytes, path):
    path.write_bytes(y4m_bytes(frame_of(png_bytes)))
    return path
