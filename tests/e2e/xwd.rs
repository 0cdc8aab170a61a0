//! Screenshots read from Xvfb's own framebuffer (`-fbdir`: the screen as an XWD
//! file, always current) rather than through WebDriver: WebKitWebDriver's
//! snapshot has hung here for good after some pages were shown (the window kept
//! painting), and a hung snapshot takes the whole WebDriver session with it.

use std::path::Path;

fn be32(b: &[u8], i: usize) -> Option<u32> {
    b.get(i * 4..i * 4 + 4).map(|s| u32::from_be_bytes([s[0], s[1], s[2], s[3]]))
}

/// The window's part of the screen (what is not the black root) as PNG, from an XWD file.
pub fn png_of(xwd: &Path) -> Option<Vec<u8>> {
    let b = std::fs::read(xwd).ok()?;
    let header = be32(&b, 0)? as usize;
    let (width, height) = (be32(&b, 4)? as usize, be32(&b, 5)? as usize);
    let lsb = be32(&b, 7)? == 0;
    let bpp = be32(&b, 11)? as usize;
    let line = be32(&b, 12)? as usize;
    let ncolors = be32(&b, 19)? as usize;
    if bpp != 32 {
        return None;
    }
    let data = b.get(header + ncolors * 12..)?;
    let px = |x: usize, y: usize| -> [u8; 3] {
        let o = y * line + x * 4;
        let p = data.get(o..o + 4).unwrap_or(&[0, 0, 0, 0]);
        if lsb { [p[2], p[1], p[0]] } else { [p[1], p[2], p[3]] }
    };
    // The window sits at the top left; the rest of the screen is the black root.
    let w = (0..width).rev().find(|&x| px(x, 0) != [0, 0, 0]).map_or(width, |x| x + 1);
    let h = (0..height).rev().find(|&y| px(0, y) != [0, 0, 0]).map_or(height, |y| y + 1);
    let mut rgb = Vec::with_capacity(w * h * 3);
    for y in 0..h {
        for x in 0..w {
            rgb.extend_from_slice(&px(x, y));
        }
    }
    let mut out = Vec::new();
    {
        let mut enc = png::Encoder::new(&mut out, u32::try_from(w).ok()?, u32::try_from(h).ok()?);
        enc.set_color(png::ColorType::Rgb);
        enc.set_depth(png::BitDepth::Eight);
        let mut writer = enc.write_header().ok()?;
        writer.write_image_data(&rgb).ok()?;
    }
    Some(out)
}
