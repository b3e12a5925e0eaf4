// A PNG decoder for the screenshot test: 8-bit RGB or RGBA, not
// interlaced (what Chromium's screenshots are), with node's zlib.
// PNG specification: "Each row of filtered data begins with a filter-type
// byte"; filter types 0 None, 1 Sub, 2 Up, 3 Average, 4 Paeth (section 9).
import zlib from "node:zlib";

/** Decodes `buf`; returns {width, height, channels, pixel(x, y) -> [r, g, b]}. */
export function decodePng(buf) {
  const signature = [137, 80, 78, 71, 13, 10, 26, 10];
  signature.forEach((b, i) => {
    if (buf[i] !== b) throw new Error("not a PNG");
  });
  let pos = 8;
  let width = 0;
  let height = 0;
  let channels = 0;
  const idat = [];
  while (pos < buf.length) {
    const len = buf.readUInt32BE(pos);
    const type = buf.toString("latin1", pos + 4, pos + 8);
    const data = buf.subarray(pos + 8, pos + 8 + len);
    if (type === "IHDR") {
      width = data.readUInt32BE(0);
      height = data.readUInt32BE(4);
      const depth = data[8];
      const color = data[9];
      const interlace = data[12];
      if (depth !== 8 || (color !== 2 && color !== 6) || interlace !== 0) {
        throw new Error(`PNG depth ${depth} colour type ${color} interlace ${interlace}: not 8-bit RGB(A), not interlaced`);
      }
      channels = color === 6 ? 4 : 3;
    } else if (type === "IDAT") {
      idat.push(data);
    } else if (type === "IEND") {
      break;
    }
    pos += 12 + len;
  }
  const raw = zlib.inflateSync(Buffer.concat(idat));
  const stride = width * channels;
  const out = Buffer.alloc(stride * height);
  for (let y = 0; y < height; y++) {
    const filter = raw[y * (stride + 1)];
    const line = raw.subarray(y * (stride + 1) + 1, (y + 1) * (stride + 1));
    for (let i = 0; i < stride; i++) {
      const a = i >= channels ? out[y * stride + i - channels] : 0;
      const b = y > 0 ? out[(y - 1) * stride + i] : 0;
      const c = i >= channels && y > 0 ? out[(y - 1) * stride + i - channels] : 0;
      let v;
      switch (filter) {
        case 0: v = line[i]; break;
        case 1: v = line[i] + a; break;
        case 2: v = line[i] + b; break;
        case 3: v = line[i] + ((a + b) >> 1); break;
        case 4: {
          const p = a + b - c;
          const pa = Math.abs(p - a);
          const pb = Math.abs(p - b);
          const pc = Math.abs(p - c);
          v = line[i] + (pa <= pb && pa <= pc ? a : pb <= pc ? b : c);
          break;
        }
        default: throw new Error(`PNG filter type ${filter}`);
      }
      out[y * stride + i] = v & 255;
    }
  }
  return {
    width,
    height,
    channels,
    pixel: (x, y) => {
      const o = y * stride + x * channels;
      return [out[o], out[o + 1], out[o + 2]];
    },
  };
}
